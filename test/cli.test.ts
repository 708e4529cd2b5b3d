/**
 * The command lines as a user types them: each case spawns the real `npm run ...`, so npm's own
 * handling of arguments (the `--`), the exit code and what reaches stdout and stderr are the
 * ones a user gets. The commands' logic is tested in-process by render.test.ts and
 * plan-diff.test.ts.
 */
import * as assert from "node:assert/strict";
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, before, describe, it } from "node:test";
import { endQuietlyWhenReaderCloses } from "../scripts/lib/pipes";

const ROOT = path.resolve(__dirname, "..");
const RENDER_USAGE = "usage: npm run --silent render -- --stack <name>";
const PLAN_DIFF_USAGE = "usage: npm run --silent plan-diff -- --stack <name> --base <git-ref>";
const ASSUMED =
    "render: assumed the secret ngcApiKey set (the stack file has no value; an offline render never reads one); --no-assume-secrets turns this off\n";

interface Result {
    readonly code: number | null;
    readonly stdout: string;
    readonly stderr: string;
}

/**
 * Runs a shell command line in the repository, with this test's Node.js first on PATH (npm
 * runs scripts with the `node` it finds there) and none of the outer npm's npm_* variables
 * (under `npm test` they would reach the inner npm as its config).
 */
function sh(commandLine: string, extraEnv: Record<string, string> = {}, cwd = ROOT): Promise<Result> {
    const env: NodeJS.ProcessEnv = {};
    for (const [key, value] of Object.entries(process.env)) if (!/^npm_/i.test(key)) env[key] = value;
    env.PATH = `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ""}`;
    Object.assign(env, extraEnv);
    return new Promise((resolve, reject) => {
        const child = spawn("bash", ["-o", "pipefail", "-c", commandLine], { cwd, env });
        let stdout = "";
        let stderr = "";
        child.stdout.on("data", (d) => (stdout += d));
        child.stderr.on("data", (d) => (stderr += d));
        child.on("error", reject);
        child.on("close", (code) => resolve({ code, stdout, stderr }));
    });
}

/** npm's own warnings about arguments it did not know (printed even with --silent). */
function withoutNpmWarnings(stderr: string): string {
    return stderr
        .split("\n")
        .filter((line) => !line.startsWith("npm warn"))
        .join("\n");
}

describe("the command lines", { concurrency: true }, () => {
    let tmp: string;
    let repo: string;

    before(() => {
        tmp = fs.mkdtempSync(path.join(os.tmpdir(), "nvcf-cli-test-"));
        // plan-diff needs a repository with history; a clone keeps this one's untouched.
        repo = path.join(tmp, "repo");
        const git = (...args: string[]) => sh(`git ${args.join(" ")}`, {}, tmp);
        return git("clone", "--quiet", ROOT, repo).then((res) => {
            assert.equal(res.code, 0, res.stderr);
            fs.symlinkSync(path.join(ROOT, "node_modules"), path.join(repo, "node_modules"), "dir");
        });
    });

    after(() => fs.rmSync(tmp, { recursive: true, force: true }));

    describe("--help prints the usage and exits 0", () => {
        for (const [script, usage] of [
            ["render", RENDER_USAGE],
            ["plan-diff", PLAN_DIFF_USAGE],
            ["bench", "usage: npm run bench [-- <runs>]"],
        ] as const) {
            it(script, async () => {
                const res = await sh(`npm run --silent ${script} -- --help`);
                assert.equal(res.code, 0, res.stderr);
                assert.ok(res.stdout.startsWith(usage), res.stdout);
                assert.match(res.stdout, /\nExit: 0 /);
                assert.equal(res.stderr, "");
            });
        }
    });

    describe("a forgotten -- gets the command line that works", () => {
        it("render: npm took --stack", async () => {
            const res = await sh("npm run --silent render --stack dev");
            assert.equal(res.code, 2);
            assert.equal(res.stdout, "");
            const stderr = withoutNpmWarnings(res.stderr);
            assert.ok(stderr.includes("npm took --stack for itself (a `--` is missing): npm run render -- --stack dev\n"), stderr);
            assert.ok(stderr.includes(RENDER_USAGE), stderr);
        });

        it("plan-diff: npm took --stack and --base", async () => {
            const res = await sh("npm run --silent plan-diff --stack=dev --base=HEAD");
            assert.equal(res.code, 2);
            const stderr = withoutNpmWarnings(res.stderr);
            assert.ok(stderr.startsWith("--stack is required\n"), stderr);
            assert.ok(
                stderr.includes("npm took --stack, --base for itself (a `--` is missing): npm run plan-diff -- --stack dev --base HEAD\n"),
                stderr,
            );
        });

        it("no hint for a plain unknown option", async () => {
            const res = await sh("npm run --silent render -- --stack dev --verbose");
            assert.equal(res.code, 2);
            assert.ok(res.stderr.startsWith(`Unknown option '--verbose'`), res.stderr);
            assert.ok(!res.stderr.includes("npm took"), res.stderr);
        });

        it("bench: a usage error exits 2", async () => {
            const res = await sh("npm run --silent bench -- --runs 3");
            assert.equal(res.code, 2);
            assert.equal(res.stderr, "Unknown option '--runs'\nusage: npm run bench [-- <runs>]\n");
        });
    });

    describe("secrets: offline tools never need their values", () => {
        it("render assumes the secret the program requires, says so on stderr, and stdout stays JSON", async () => {
            const res = await sh("npm run --silent render -- --stack dev");
            assert.equal(res.code, 0, res.stderr);
            assert.equal(res.stderr, ASSUMED);
            const rendered = JSON.parse(res.stdout) as { stack: string; resources: unknown[] };
            assert.equal(rendered.stack, "dev");
            assert.ok(rendered.resources.length > 0);
        });

        it("--no-assume-secrets fails as pulumi up would: exit 1, the program's message", async () => {
            const res = await sh("npm run --silent render -- --stack dev --no-assume-secrets");
            assert.equal(res.code, 1);
            assert.equal(res.stdout, "");
            assert.ok(res.stderr.startsWith("Invalid stack configuration:\n  - nvcf-self-managed:ngcApiKey: is required"), res.stderr);
        });

        it("plan-diff assumes it on both sides; exit 1 for a change", async () => {
            // Exit 0 for no change is plan-diff.test.ts's (in-process): each run here renders twice.
            const file = path.join(repo, "Pulumi.dev.yaml");
            fs.writeFileSync(file, fs.readFileSync(file, "utf8").replace("replicaCount: 3", "replicaCount: 5"));
            const res = await sh(`npm run --silent plan-diff -- --stack dev --base HEAD --dir ${repo}`);
            assert.equal(res.code, 1, res.stderr);
            assert.match(res.stderr, /^plan-diff: assumed the secret ngcApiKey set at HEAD \(/);
            assert.match(res.stderr, /\nplan-diff: assumed the secret ngcApiKey set in the working tree \(/);
            assert.match(res.stdout, /~ .*cassandra/);
        });

        it("plan-diff: a bad --base exits 2", async () => {
            const res = await sh(`npm run --silent plan-diff -- --stack dev --base no-such-ref --dir ${repo}`);
            assert.equal(res.code, 2);
            assert.ok(res.stderr.includes(PLAN_DIFF_USAGE), res.stderr);
        });
    });

    describe("a stack file render cannot read", () => {
        it("invalid YAML: the file and line, exit 2, no stack trace", async () => {
            const dir = path.join(tmp, "bad-yaml");
            fs.mkdirSync(dir);
            fs.copyFileSync(path.join(ROOT, "Pulumi.yaml"), path.join(dir, "Pulumi.yaml"));
            fs.writeFileSync(path.join(dir, "Pulumi.bad.yaml"), "config:\n  nvcf-self-managed:controlPlane:\n    global: {domain: x\n");
            const res = await sh(`npm run --silent render -- --stack bad --dir ${dir}`);
            assert.equal(res.code, 2);
            assert.match(res.stderr, /^Pulumi\.bad\.yaml: not valid YAML: .* \(line 4, column 1\)$/m);
            assert.doesNotMatch(res.stderr, /\n\s+at /, "no stack trace");
        });
    });

    describe("a reader that stops early", () => {
        it("render | head -1: exit 0, no EPIPE stack trace", async () => {
            const res = await sh("npm run --silent render -- --stack dev | head -1");
            assert.equal(res.code, 0, res.stderr);
            assert.equal(res.stdout, "{\n");
            assert.equal(res.stderr, ASSUMED);
        });

        it("any EPIPE ends the process with 0; other write errors stay fatal", () => {
            const { EventEmitter } = require("node:events") as typeof import("node:events");
            const stream = new EventEmitter() as unknown as NodeJS.WriteStream;
            const codes: number[] = [];
            endQuietlyWhenReaderCloses([stream], (code) => codes.push(code));
            stream.emit("error", Object.assign(new Error("write EPIPE"), { code: "EPIPE" }));
            assert.deepEqual(codes, [0]);
            assert.throws(() => stream.emit("error", Object.assign(new Error("no space"), { code: "ENOSPC" })), /no space/);
        });
    });

    describe("npm run test:e2e without its tools", () => {
        // No tools anywhere: an empty cache directory and no E2E_* variables.
        const noTools = () => ({ NVCF_E2E_CACHE: fs.mkdtempSync(path.join(tmp, "e2e-cache-")) });
        const unsetTools =
            "unset E2E_ETCD E2E_KUBE_APISERVER E2E_PULUMI E2E_PULUMI_RESOURCE_KUBERNETES E2E_PULUMI_LANGUAGE_NODEJS E2E_HELM NVCF_E2E_BIN E2E_KUBECONFIG NVCF_E2E_SKIP_MISSING; ";

        it("fails, naming what is missing and how to build it", async () => {
            const res = await sh(`${unsetTools}npm run --silent test:e2e`, noTools());
            assert.equal(res.code, 1);
            assert.equal(res.stdout, "");
            assert.match(
                res.stderr,
                /^end-to-end suite: cannot run: missing bin, etcd, kubeApiserver, pulumi, kubernetesProvider, languageHost, helm /,
            );
            assert.match(res.stderr, /scripts\/e2e\/build-tools\.sh/);
        });

        it("skips, and says so, when NVCF_E2E_SKIP_MISSING=1 asks", async () => {
            const res = await sh(`${unsetTools}NVCF_E2E_SKIP_MISSING=1 npm run --silent test:e2e`, noTools());
            assert.equal(res.code, 0, res.stderr);
            assert.match(res.stdout, /^end-to-end suite: skipped, as NVCF_E2E_SKIP_MISSING=1 asks: missing /);
        });
    });
});
