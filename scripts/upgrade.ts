/** `npm run upgrade -- --stack <name> ...`: see scripts/lib/upgrade/cli.ts. */
import { processIo } from "./lib/cli";
import { endQuietlyWhenReaderCloses } from "./lib/pipes";
import { upgradeCli } from "./lib/upgrade/cli";

endQuietlyWhenReaderCloses();
// Ctrl-C reaches the pulumi CLI too, which stops its update cleanly; wait for it (the stage is
// then recorded as failed, and a rerun resumes there). A second Ctrl-C ends at once.
process.once("SIGINT", () => {
    process.stderr.write(
        "\nupgrade: interrupted; waiting for pulumi to stop (Ctrl-C again ends at once, and may leave the stack locked)\n",
    );
    process.once("SIGINT", () => process.exit(130));
});
upgradeCli(process.argv.slice(2), processIo, process.env).then((code) => {
    process.exitCode = code;
});
