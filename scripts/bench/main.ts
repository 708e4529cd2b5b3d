/**
 * `npm run bench [-- <runs>]`: the command line (--help, usage errors, a closed pipe) around
 * scripts/bench/program.ts, which measures and reports. Kept apart so the bench's own file
 * stays about measuring.
 */
import { processIo } from "../lib/cli";
import { benchCli } from "./cli";
import { endQuietlyWhenReaderCloses } from "../lib/pipes";

endQuietlyWhenReaderCloses();
const code = benchCli(process.argv.slice(2), processIo);
if (code === undefined) {
    // Starts the bench: the module runs it on load, with process.argv[2] as the run count.
    void import("./program");
} else {
    process.exitCode = code;
}
