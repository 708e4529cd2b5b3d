// Preloaded with --require by test/help.test.ts: when the process ends, the files it loaded
// (require's cache, which tsx fills for this CommonJS project), one a line, to $NVCF_LOADED_MODULES.
const fs = require("node:fs");

process.on("exit", () => fs.writeFileSync(process.env.NVCF_LOADED_MODULES, Object.keys(require.cache).join("\n")));
