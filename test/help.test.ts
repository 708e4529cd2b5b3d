/**
 * Every command of this repository answers `--help` at once: its help is printed before it loads
 * what its work needs (the Pulumi SDK, the Kubernetes client, the program's config schemas), which
 * takes seconds. Each npm script's entry point runs as npm runs it, with a preload that lists
 * the modules the process loaded (support/loaded-modules.cjs); the runs start as this file loads
 * (see support/background.ts).
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { describe, test } from "node:test";
import { inBackground, runToEnd } from "./support/background";

const ROOT = path.resolve(__dirname, "..");
/** What a command's work loads and its help must not: each takes hundreds of milliseconds or more. */
const HEAVY = /\/node_modules\/(@pulumi\/|@kubernetes\/client-node\/|zod\/)/;

/** The npm scripts that run a TypeScript command of this repository, with its entry point. */
function commands(): [string, string][] {
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> };
    return Object.entries(pkg.scripts).flatMap(([script, line]) => {
        const entry = /^node --import tsx (\S+\.ts)$/.exec(line)?.[1];
        return entry ? [[script, entry] as [string, string]] : [];
    });
}

/** `<entry> --help` as npm runs it, and the files the process loaded. */
function help(entry: string) {
    return inBackground(async () => {
        const list = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "nvcf-help-")), "loaded");
        try {
            const res = await runToEnd(
                process.execPath,
                ["--import", "tsx", "--require", path.join(__dirname, "support", "loaded-modules.cjs"), entry, "--help"],
                { cwd: ROOT, env: { ...process.env, NVCF_LOADED_MODULES: list } },
            );
            return { ...res, loaded: fs.readFileSync(list, "utf8").split("\n") };
        } finally {
            fs.rmSync(path.dirname(list), { recursive: true, force: true });
        }
    });
}

describe("--help prints the usage before anything heavy loads", () => {
    const runs = commands().map(([script, entry]) => [script, help(entry)] as const);

    test("the npm scripts are found: every command that has a --help", () => {
        assert.deepEqual(runs.map(([script]) => script).sort(), [
            "bench",
            "bench:e2e",
            "bench:install",
            "bench:render",
            "bench:test",
            "chart-reads",
            "fleet",
            "plan-diff",
            "record:openbao",
            "recover",
            "render",
            "status",
            "test:e2e",
            "test:parity",
            "upgrade",
        ]);
    });

    for (const [script, run] of runs) {
        test(script, async () => {
            const { code, stdout, stderr, loaded } = await run;
            assert.equal(code, 0, stderr);
            assert.match(stdout, new RegExp(`^usage: npm run (--silent )?${script}\\b`));
            assert.deepEqual(loaded.filter((file) => HEAVY.test(file)).slice(0, 3), [], `${script} --help loaded ${loaded.length} files`);
        });
    }
});
