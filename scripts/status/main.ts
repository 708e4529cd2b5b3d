/** `npm run status -- --stack <name> ...`: see scripts/status/cli.ts. */
import { processIo } from "../lib/cli";
import { endQuietlyWhenReaderCloses } from "../lib/pipes";
import { statusCli } from "./cli";

endQuietlyWhenReaderCloses();
// Ctrl-C ends --watch with the last round's exit code; a second one ends at once.
const stop = new AbortController();
process.once("SIGINT", () => {
    stop.abort();
    process.once("SIGINT", () => process.exit(130));
});
statusCli(process.argv.slice(2), processIo, process.env, { signal: stop.signal }).then((code) => {
    process.exitCode = code;
    // A check's pending request must not keep an interrupted watch alive.
    if (stop.signal.aborted) process.exit(code);
});
