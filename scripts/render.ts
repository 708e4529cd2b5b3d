/** `npm run render -- --stack <name> ...`: see scripts/lib/render-cli.ts. */
import { processIo } from "./lib/cli";
import { renderCli } from "./lib/render-cli";

renderCli(process.argv.slice(2), processIo).then((code) => {
    process.exitCode = code;
});
