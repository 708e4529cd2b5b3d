/** `npm run recover -- --stack <name> ...`: see scripts/recover/cli.ts. */
import { processIo } from "../lib/cli";
import { endQuietlyWhenReaderCloses } from "../lib/pipes";
import { recoverCli } from "./cli";

endQuietlyWhenReaderCloses();
recoverCli(process.argv.slice(2), processIo, process.env).then(
    (code) => (process.exitCode = code),
    (error: unknown) => {
        process.stderr.write(`recover: ${error instanceof Error ? error.message : String(error)}\n`);
        process.exitCode = 2;
    },
);
