/**
 * Preloaded right after tsx by every command of this repository, `pulumi up`'s program included
 * (`node --import tsx --import ./scripts/tsx-lexer.mjs <file>`): holds the main module back until
 * tsx's WebAssembly ES-module lexer is ready.
 *
 * tsx runs es-module-lexer over every CommonJS file a process requires (to tell ES module syntax
 * in a .js file), thousands of files for the Pulumi SDKs. It compiles the lexer's WebAssembly
 * asynchronously as it loads, and until that is done it uses a JavaScript copy many times slower.
 * A program requires its whole module graph synchronously, right after the preloads, so without
 * this wait every one of those checks took the slow copy: about 0.4 s of CPU in each process
 * that loads the SDKs. Awaiting the same module's `init` lets tsx's own wait (registered first)
 * finish before this one.
 *
 * The lexer's file name carries a hash of tsx's build; when a tsx upgrade renames or drops it,
 * this waits for nothing and the commands are only slower. test/tsx-lexer.test.ts checks that
 * tsx takes the fast lexer after this preload.
 */
import * as fs from "node:fs";
import { createRequire } from "node:module";
import * as path from "node:path";

const require = createRequire(import.meta.url);

/** tsx's CommonJS lexer module (dist/lexer-<hash>.cjs), or undefined when tsx has none. */
export function tsxLexerPath() {
    try {
        const dist = path.join(path.dirname(require.resolve("tsx/package.json")), "dist");
        const found = fs.readdirSync(dist).filter((name) => /^lexer-[\w-]+\.cjs$/.test(name));
        return found.length === 1 ? path.join(dist, found[0]) : undefined;
    } catch {
        return undefined;
    }
}

const lexer = tsxLexerPath();
if (lexer) await require(lexer).init;
