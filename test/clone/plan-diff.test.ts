/**
 * plan-diff as a reviewer and the pull-request workflow run it, on a fresh clone of this
 * repository set up with the README's `npm ci`: every form the README, the command's help and
 * the workflow use gives `No changes.` on an unchanged tree, and a change to a dynamic resource's
 * code alone is one line per resource. Each run renders the real program twice (seconds of CPU
 * each), so this is a suite of its own (`npm run test:clone`, run by .ci/run), not the unit suite.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, before, describe, test } from "node:test";
import { runToEnd, type Finished } from "../support/background";
import { takeReusableDir, type ReusableDir } from "../../scripts/lib/reusable-dir";

const ROOT = path.resolve(__dirname, "..", "..");
const POLICY_PASS = "Policy pack on the working tree: no violations\n";

let tmp: ReusableDir;
let clone: string;
let head: string;

/** A command line in `cwd` as a user types it, with none of an outer npm's npm_* variables. */
function sh(commandLine: string, cwd: string): Promise<Finished> {
    const env: NodeJS.ProcessEnv = {};
    for (const [key, value] of Object.entries(process.env)) if (!/^npm_/i.test(key)) env[key] = value;
    env.PATH = `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ""}`;
    return runToEnd("bash", ["-o", "pipefail", "-c", commandLine], { cwd, env });
}

async function ok(commandLine: string, cwd: string): Promise<string> {
    const res = await sh(commandLine, cwd);
    assert.equal(res.code, 0, `${commandLine}: ${res.stderr}`);
    return res.stdout.trim();
}

before(async () => {
    tmp = takeReusableDir("nvcf-clone-test");
    clone = path.join(tmp.dir, "repo");
    fs.rmSync(clone, { recursive: true, force: true });
    await ok(`git clone --quiet ${ROOT} ${clone}`, tmp.dir);
    await ok("npm ci --no-audit --no-fund --prefer-offline", clone);
    head = await ok("git rev-parse HEAD", clone);
});

after(() => tmp.release());

describe("plan-diff on a fresh clone", () => {
    const unchanged = (base: string) => `Stack dev: ${base} -> working tree\nNo changes.\n${POLICY_PASS}`;

    test("an unchanged tree: no change and exit 0 in every form the README, the help and the workflow use", async () => {
        const short = head.slice(0, 12);
        const forms = await Promise.all([
            // The README's and the help's forms, in the clone.
            sh("npm run --silent plan-diff -- --stack dev --base origin/main", clone),
            sh("npm run --silent plan-diff -- --stack dev --base HEAD", clone),
            // --dir, from another checkout (this one).
            sh(`npm run --silent plan-diff -- --stack dev --base HEAD --dir ${clone}`, ROOT),
            // The pull-request workflow's step: the base's commit, markdown.
            sh(`npm run --silent plan-diff -- --stack dev --base "${head}" --format markdown`, clone),
        ]);
        const [readme, help, dir, workflow] = forms;
        for (const res of forms) assert.equal(res.code, 0, res.stdout + res.stderr);
        assert.equal(readme.stdout, unchanged(`origin/main (${short})`));
        assert.equal(help.stdout, unchanged(`HEAD (${short})`));
        assert.equal(dir.stdout, unchanged(`HEAD (${short})`));
        assert.match(workflow.stdout, /^### Stack `dev`: no changes\n/);
        assert.ok(workflow.stdout.includes("✅ **Policy pack** on this revision: no violations"), workflow.stdout);
    });

    test("a change to a dynamic provider's code alone: one line per resource it serves, exit 1", async () => {
        // The health gate's provider: the code its resource (found by the type it registers) references.
        const resource = fs.readFileSync(
            findFile(path.join(clone, "components"), (text) => /"nvcf",\s*"HealthGate"/.test(text)),
            "utf8",
        );
        const name = /providerReference\("([\w-]+)"/.exec(resource);
        assert.ok(name, "the health gate names no provider");
        const file = path.join(clone, "components", "providers", `${name[1]}.ts`);
        const text = fs.readFileSync(file, "utf8");
        // A function of the provider's (the kit's specs call module functions): the first async one.
        const body = /\nasync function \w+\([^)]*\)[^{]*\{\n/.exec(text);
        assert.ok(body, `no async function in ${file}`);
        const at = body.index + body[0].length;
        // A statement with an effect: tsx's compiler drops one without (a comment, a bare string).
        const statement = 'if (Date.now() < 0) throw new Error("a changed provider");';
        fs.writeFileSync(file, `${text.slice(0, at)}    ${statement}\n${text.slice(at)}`);
        try {
            const res = await sh("npm run --silent plan-diff -- --stack dev --base HEAD", clone);
            assert.equal(res.code, 1, res.stderr);
            const lines = res.stdout.split("\n");
            const changed = lines.filter((l) => l.startsWith("~ "));
            assert.ok(
                changed.some((l) => l.startsWith("~ control-plane-health-gate (pulumi-nodejs:dynamic/nvcf:HealthGate)")),
                res.stdout,
            );
            for (const line of changed) assert.match(line, /^~ \S+ \(pulumi-nodejs:dynamic\/nvcf:\w+\): its provider code changed$/);
            assert.equal(lines[1], `0 to add, 0 to remove, 0 to replace, ${changed.length} to change`);
            assert.doesNotMatch(res.stdout, /sha256|__provider/);
        } finally {
            fs.writeFileSync(file, text);
        }
    });
});

/** The first .ts file under `dir` whose text passes `test`. */
function findFile(dir: string, test: (text: string) => boolean): string {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
        const file = path.join(entry.parentPath, entry.name);
        if (entry.isFile() && file.endsWith(".ts") && test(fs.readFileSync(file, "utf8"))) return file;
    }
    throw new Error(`no file under ${dir} declares the health gate`);
}
