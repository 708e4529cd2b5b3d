/**
 * The dynamic providers' serialized code, kept on disk for the mock engine
 * (scripts/lib/closure-cache.ts): what it stores is what the SDK serializes, a later load of the
 * program reads it instead of serializing, an edit of a module the provider's module loads is a
 * new key (an edit elsewhere is not), and a text that captures a secret never reaches the disk. The program is a copy of
 * test/fixtures/closure-probe in a temporary directory (its node_modules linked to this
 * repository's, as plan-diff's worktrees are), so that a test can edit it; another root is
 * loaded afresh at each run, as in a new process.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, before, beforeEach, describe, test } from "node:test";
import { CLOSURE_CACHE_KEPT, DEFAULT_CLOSURE_CACHE_DIR, useClosureCache } from "../scripts/lib/closure-cache";
import { runProgram } from "../scripts/lib/mock-engine";
import { REPO_ROOT } from "../scripts/lib/repo";
import { takeReusableDir, type ReusableDir } from "../scripts/lib/reusable-dir";

const FIXTURE = path.join(__dirname, "fixtures", "closure-probe");

describe("the providers' code kept on disk for the mock engine", { concurrency: false }, () => {
    let workDir: ReusableDir;
    let work: string;
    let program: string;
    let cache: string;

    before(() => {
        // The same path each run: the copy's modules load compiled.
        workDir = takeReusableDir("nvcf-closure-cache");
        work = workDir.dir;
        program = path.join(work, "program");
        fs.cpSync(FIXTURE, program, { recursive: true });
        fs.symlinkSync(path.join(REPO_ROOT, "node_modules"), path.join(program, "node_modules"));
    });
    after(() => {
        useClosureCache(DEFAULT_CLOSURE_CACHE_DIR);
        workDir.release();
    });
    beforeEach(() => {
        cache = fs.mkdtempSync(path.join(work, "cache-"));
        useClosureCache(cache);
    });

    /** The serialized code the greeter resource was given, as the engine would receive it. */
    async function greeterCode(config: Record<string, string> = {}): Promise<string> {
        const run = await runProgram(config, [], "test", program);
        return String(run.resources.find((r) => r.name === "greeter")!.inputs.__provider);
    }
    const stored = () => fs.readdirSync(cache).map((f) => path.join(cache, f));

    test("what it stores is what the SDK serializes; the next load of the program reads it instead", async () => {
        useClosureCache(undefined);
        const serialized = await greeterCode();
        assert.match(serialized, /hello, \$\{name\}/, "the captured module is inlined");
        assert.deepEqual(fs.readdirSync(cache), [], "off: nothing stored");

        useClosureCache(cache);
        assert.equal(await greeterCode(), serialized, "a miss serializes as the SDK does");
        const [file, ...more] = stored();
        assert.deepEqual(more, []);
        assert.equal(fs.readFileSync(file, "utf8"), serialized);

        // Changed behind its back: a later load answers from the file, without serializing.
        fs.writeFileSync(file, "exports.handler = 'from the cache';");
        assert.equal(await greeterCode(), "exports.handler = 'from the cache';");
    });

    /** Runs `work` with `file` of the program edited by `edit`, then puts it back. */
    async function withEdit<T>(file: string, edit: (text: string) => string, work: () => Promise<T>): Promise<T> {
        const original = fs.readFileSync(path.join(program, file), "utf8");
        fs.writeFileSync(path.join(program, file), edit(original));
        try {
            return await work();
        } finally {
            fs.writeFileSync(path.join(program, file), original);
        }
    }

    test("an edit of a module the provider's module loads is another key: serialized afresh", async () => {
        const before = await greeterCode();
        const after = await withEdit("greeting.ts", (t) => t.replace("hello, ", "good day, "), greeterCode);
        assert.match(after, /good day, \$\{name\}/);
        assert.notEqual(after, before);
        assert.equal(stored().length, 2);
    });

    test("an edit of a module no provider loads keeps the key", async () => {
        await greeterCode();
        const [file] = stored();
        fs.writeFileSync(file, "exports.handler = 'from the cache';");
        const code = await withEdit("names.ts", (t) => `${t}export const UNUSED = 1;\n`, greeterCode);
        assert.equal(code, "exports.handler = 'from the cache';");
        assert.equal(stored().length, 1);
    });

    test("the folder keeps the most recently used texts, dropping the oldest beyond its bound", async () => {
        const longAgo = new Date(Date.now() - 86_400_000);
        for (let i = 0; i < CLOSURE_CACHE_KEPT; i++) {
            const file = path.join(cache, `old-${String(i).padStart(3, "0")}.js`);
            fs.writeFileSync(file, "exports.handler = 'old';");
            fs.utimesSync(file, longAgo, new Date(longAgo.getTime() + i));
        }
        const code = await greeterCode();
        const kept = fs.readdirSync(cache);
        assert.equal(kept.length, CLOSURE_CACHE_KEPT);
        assert.ok(!kept.includes("old-000.js"), "the least recently used text is gone");
        assert.ok(kept.includes("old-001.js"));
        assert.ok(
            stored().some((f) => fs.readFileSync(f, "utf8") === code),
            "the new text is kept",
        );
    });

    test("a provider that captures a secret is serialized every time and never written to disk", async () => {
        const run = await runProgram({ "closure-probe:withToken": "true" }, [], "test", program);
        const token = run.resources.find((r) => r.name === "token")!;
        assert.match(String(token.inputs.__provider), /closure-probe-token/, "the secret is in the code the engine gets");
        assert.equal(stored().length, 1, "only the greeter's code is stored");
        for (const file of stored()) assert.doesNotMatch(fs.readFileSync(file, "utf8"), /closure-probe-token/);
    });
});
