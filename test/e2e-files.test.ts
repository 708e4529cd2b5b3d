/** What npm run test:e2e and bench:e2e print of each end-to-end file's time, and which files they run. */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, test } from "node:test";
import { e2eFiles, fileTimes } from "../scripts/e2e/files";

describe("the end-to-end files' times", () => {
    test("every test/e2e file runs, in name order", () => {
        const onDisk = fs.readdirSync(path.join(__dirname, "e2e")).filter((f) => f.endsWith(".test.ts"));
        assert.deepEqual(
            e2eFiles(),
            onDisk.sort().map((f) => path.join("test", "e2e", f)),
        );
        assert.ok(e2eFiles().includes(path.join("test", "e2e", "e2e.test.ts")));
    });

    test("one line per file with its wall time and outcome, then the total", () => {
        const text = fileTimes([
            { file: "test/e2e/a.test.ts", ms: 1234, passed: true },
            { file: "test/e2e/longer.test.ts", ms: 600_000, passed: false },
        ]);
        assert.equal(
            text,
            [
                "  test/e2e/a.test.ts           1.2 s  passed",
                "  test/e2e/longer.test.ts    600.0 s  FAILED",
                "  all files                  601.2 s",
                "",
            ].join("\n"),
        );
    });
});
