/** `npm run render -- --stack <name> ...`: see scripts/render/cli.ts. */
import { processIo } from "../lib/cli";
import { endQuietlyWhenReaderCloses } from "../lib/pipes";
import { renderCli } from "./cli";

endQuietlyWhenReaderCloses();
renderCli(process.argv.slice(2), processIo).then((code) => {
    process.exitCode = code;
});
