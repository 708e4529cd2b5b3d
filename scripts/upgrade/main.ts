/** `npm run upgrade -- --stack <name> ...`: see scripts/upgrade/cli.ts. */
import { processIo } from "../lib/cli";
import { endQuietlyWhenReaderCloses } from "../lib/pipes";
import { upgradeCli } from "./cli";

endQuietlyWhenReaderCloses();
// Ctrl-C stops the upgrade at its next step, and the stage is recorded as failed, so a rerun
// resumes there. The terminal sends it to a running pulumi update too, which stops cleanly (a
// second interrupt would stop it at once, so none is forwarded). A second Ctrl-C ends at once.
const stop = new AbortController();
process.once("SIGINT", () => {
    process.stderr.write("\nupgrade: interrupted; stopping cleanly (Ctrl-C again ends at once, and may leave the stack locked)\n");
    stop.abort();
    process.once("SIGINT", () => process.exit(130));
});
upgradeCli(process.argv.slice(2), processIo, process.env, { signal: stop.signal }).then((code) => {
    process.exitCode = code;
});
