/** `npm run plan-diff -- --stack <name> --base <git-ref> ...`: see scripts/plan-diff/cli.ts. */
import { processIo } from "../lib/cli";
import { endQuietlyWhenReaderCloses } from "../lib/pipes";
import { planDiffCli } from "./cli";

endQuietlyWhenReaderCloses();
planDiffCli(process.argv.slice(2), processIo).then((code) => {
    process.exitCode = code;
});
