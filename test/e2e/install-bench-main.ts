/**
 * `npm run bench:install [-- --scale <n>] [--runs <n>] [--no-fleet]`: the command line first
 * (install-bench-cli.ts), then the benchmark (install-bench.ts), loaded only when it runs.
 */
import { processIo } from "../../scripts/lib/cli";
import { installBenchCommandLine } from "./install-bench-cli";

const line = installBenchCommandLine(process.argv.slice(2), processIo, process.env);
if ("exit" in line) {
    process.exitCode = line.exit;
} else {
    import("./install-bench")
        .then(({ installBench }) => installBench(line.options))
        .then(
            (code) => process.exit(code),
            (e: unknown) => {
                process.stderr.write(`bench:install: ${String(e)}\n`);
                process.exit(1);
            },
        );
}
