/** `npm run fleet -- status ...`: see scripts/fleet/cli.ts. */
import { processIo } from "../lib/cli";
import { endQuietlyWhenReaderCloses } from "../lib/pipes";
import { fleetCli } from "./cli";

endQuietlyWhenReaderCloses();
fleetCli(process.argv.slice(2), processIo, process.env).then((code) => {
    process.exitCode = code;
});
