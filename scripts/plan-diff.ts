/** `npm run plan-diff -- --stack <name> --base <git-ref> ...`: see scripts/lib/plan-diff-cli.ts. */
import { processIo } from "./lib/cli";
import { planDiffCli } from "./lib/plan-diff-cli";

planDiffCli(process.argv.slice(2), processIo).then((code) => {
    process.exitCode = code;
});
