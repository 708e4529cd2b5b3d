/** `npm run recover -- --stack <name> ...`: see scripts/recover/cli.ts. */
import { processIo } from "../lib/cli";
import { endQuietlyWhenReaderCloses } from "../lib/pipes";
import { recoverCli } from "./cli";
import { messageOf } from "../../lib/text/message-of";

endQuietlyWhenReaderCloses();
recoverCli(process.argv.slice(2), processIo, process.env).then(
    (code) => (process.exitCode = code),
    (error: unknown) => {
        process.stderr.write(`recover: ${messageOf(error)}\n`);
        process.exitCode = 2;
    },
);
