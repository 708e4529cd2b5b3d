/**
 * The child process of program-runs.ts: runs this repository's program under the mock engine
 * for each request and answers with the recorded run, or with the message of what it threw.
 */
import { runProgram } from "../../scripts/lib/mock-engine";
import type { StackConfig } from "../../scripts/lib/stack-config";
import type { Answer } from "./program-runs";

process.on("message", (request: { id: number; config: StackConfig; secretKeys: string[]; stack: string }) => {
    const answer = (a: Answer) => process.send!(a);
    runProgram(request.config, request.secretKeys, request.stack).then(
        (run) => answer({ id: request.id, run }),
        (error: unknown) => {
            const { name, message } = error instanceof Error ? error : { name: "Error", message: String(error) };
            answer({ id: request.id, error: { name, message } });
        },
    );
});
// The test process went away: nothing more to do.
process.on("disconnect", () => process.exit(0));
