/** The lint rule that fails CI on an import cycle between files (scripts/lint/no-import-cycle.mjs). */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, test } from "node:test";
import { Linter } from "eslint";
import tseslint from "typescript-eslint";
import { noImportCycle } from "../scripts/lint/no-import-cycle.mjs";

const ROOT = path.resolve(__dirname, "..");
const FIXTURE = path.join(ROOT, "test", "fixtures", "import-cycle");

/** The rule's messages on one fixture file, linted as the repository's config lints it. */
function cycles(file: string): string[] {
    const filename = path.join(FIXTURE, file);
    const linter = new Linter({ configType: "flat", cwd: ROOT });
    const messages = linter.verify(
        fs.readFileSync(filename, "utf8"),
        [
            {
                files: ["**/*.ts"],
                languageOptions: { parser: tseslint.parser as Linter.Parser },
                plugins: { local: { rules: { "no-import-cycle": noImportCycle } } },
                rules: { "local/no-import-cycle": "error" },
            },
        ],
        { filename },
    );
    return messages.map((m) => m.message);
}

describe("no-import-cycle", () => {
    test("both files of a cycle are reported, with the chain back, a type-only import included", () => {
        const dir = "test/fixtures/import-cycle";
        assert.deepEqual(cycles("a.ts"), [`import cycle: ${dir}/a.ts -> ${dir}/b.ts -> ${dir}/a.ts`]);
        assert.deepEqual(cycles("b.ts"), [`import cycle: ${dir}/b.ts -> ${dir}/a.ts -> ${dir}/b.ts`]);
    });

    test("a file that imports into a cycle without being on it is not", () => {
        assert.deepEqual(cycles("c.ts"), []);
    });

    test("dynamic imports and require count", () => {
        assert.equal(cycles("lazy.ts").length, 1);
        assert.equal(cycles("lazy-back.ts").length, 1);
    });
});
