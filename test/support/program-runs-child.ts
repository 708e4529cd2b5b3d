/**
 * The child process of program-runs.ts: runs this repository's program under the mock engine
 * for each request, one at a time, and answers with the recorded run (or the message of what it
 * threw) and what the run wrote to the console, which the test process writes in its turn.
 */
import { format } from "node:util";
// Loaded as the child starts, while the test process loads the tests: not in the first run.
import "../../index";
import { runProgram } from "../../scripts/lib/mock-engine";
import { CONSOLE_METHODS, type Answer, type Logged, type Request } from "./program-runs-protocol";

async function answer(request: Request): Promise<Answer> {
    // Under the mocks the SDK logs to the console: kept for the test process, not printed here.
    const logged: Logged[] = [];
    const kept = CONSOLE_METHODS.map((method) => [method, console[method]] as const);
    for (const method of CONSOLE_METHODS) console[method] = (...args: unknown[]) => void logged.push({ method, text: format(...args) });
    try {
        return { id: request.id, logged, run: await runProgram(request.config, request.secretKeys, request.stack) };
    } catch (error) {
        const { name, message } = error instanceof Error ? error : { name: "Error", message: String(error) };
        return { id: request.id, logged, error: { name, message } };
    } finally {
        for (const [method, write] of kept) console[method] = write;
    }
}

let last: Promise<unknown> = Promise.resolve();
process.on("message", (request: Request) => {
    last = last.then(() => answer(request)).then((a) => process.send!(a));
});
// The test process went away: nothing more to do.
process.on("disconnect", () => process.exit(0));
