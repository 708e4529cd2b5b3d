/**
 * The command lines as a user types them. Each command runs once for real, spawned through
 * `npm run ...`, so npm's own handling of arguments (the `--`), the exit code and what reaches
 * stdout and stderr are the ones a user gets; those runs start when this file loads (see
 * support/background.ts). The other cases call the same command in this process, with the
 * environment npm gives a script. The commands' logic is tested in-process by render.test.ts
 * and plan-diff.test.ts.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, before, describe, it } from "node:test";
import { benchCli } from "../scripts/bench/cli";
import { endQuietlyWhenReaderCloses } from "../scripts/lib/pipes";
import { planDiffCli } from "../scripts/plan-diff/cli";
import { renderCli } from "../scripts/render/cli";
import { takeReusableDir } from "../scripts/lib/reusable-dir";
import { inBackground, runToEnd, type Finished } from "./support/background";
import { capture } from "./support/capture";
import { runOrFailHere } from "./support/program-runs";

const ROOT = path.resolve(__dirname, "..");
const RENDER_USAGE = "usage: npm run --silent render -- --stack <name>";
const PLAN_DIFF_USAGE = "usage: npm run --silent plan-diff -- --stack <name> --base <git-ref>";
const ASSUMED =
    "render: assumed the secret ngcApiKey set (the stack file has no value; an offline render never reads one); --no-assume-secrets turns this off\n";

/**
 * Runs a shell command line in the repository, with this test's Node.js first on PATH (npm
 * runs scripts with the `node` it finds there) and none of the outer npm's npm_* variables
 * (under `npm test` they would reach the inner npm as its config).
 */
function sh(commandLine: string, extraEnv: Record<string, string> = {}, cwd = ROOT): Promise<Finished> {
    const env: NodeJS.ProcessEnv = {};
    for (const [key, value] of Object.entries(process.env)) if (!/^npm_/i.test(key)) env[key] = value;
    env.PATH = `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ""}`;
    Object.assign(env, extraEnv);
    return runToEnd("bash", ["-o", "pipefail", "-c", commandLine], { cwd, env });
}

/** Calls `use` with a new temporary directory, removed afterwards. */
async function inTempDir<T>(prefix: string, use: (dir: string) => Promise<T>): Promise<T> {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
    try {
        return await use(dir);
    } finally {
        fs.rmSync(dir, { recursive: true, force: true });
    }
}

/** The same, in a directory at the same path each run (scripts/lib/reusable-dir.ts). */
async function inReusableDir<T>(name: string, use: (dir: string) => Promise<T>): Promise<T> {
    const { dir, release } = takeReusableDir(name);
    try {
        return await use(dir);
    } finally {
        release();
    }
}

/** npm's own warnings about arguments it did not know (printed even with --silent). */
function withoutNpmWarnings(stderr: string): string {
    return stderr
        .split("\n")
        .filter((line) => !line.startsWith("npm warn"))
        .join("\n");
}

// No end-to-end tools anywhere: an empty cache directory and no E2E_* variables.
const unsetE2eTools =
    "unset E2E_ETCD E2E_KUBE_APISERVER E2E_KUBE_CONTROLLER_MANAGER E2E_PULUMI E2E_PULUMI_RESOURCE_KUBERNETES E2E_PULUMI_LANGUAGE_NODEJS " +
    "E2E_HELM E2E_BAO E2E_NATS_SERVER E2E_VAULT_PLUGIN_SECRETS_JWT E2E_CRDS E2E_CASSANDRA E2E_CQLSH NVCF_E2E_BIN E2E_KUBECONFIG NVCF_E2E_SKIP_MISSING; ";
/** `envSh`: the cache's env.sh, as build-tools.sh would have left it. */
const e2eWithoutTools = (commandLine: string, envSh?: string) =>
    inBackground(() =>
        inTempDir("nvcf-e2e-cache-", (cache) => {
            if (envSh !== undefined) fs.writeFileSync(path.join(cache, "env.sh"), envSh);
            return sh(`${unsetE2eTools}${commandLine}`, { NVCF_E2E_CACHE: cache });
        }),
    );

// The real commands run once each (one run of a script is enough to prove it), started in the
// order their tests come, as this file loads; each test awaits its run.
describe("the command lines", () => {
    let tmp: string;

    before(() => {
        tmp = fs.mkdtempSync(path.join(os.tmpdir(), "nvcf-cli-test-"));
    });

    after(() => fs.rmSync(tmp, { recursive: true, force: true }));

    describe("--help prints the usage and exits 0", () => {
        for (const [script, usage, cli] of [
            ["render", RENDER_USAGE, renderCli],
            ["plan-diff", PLAN_DIFF_USAGE, planDiffCli],
            [
                "bench",
                "usage: npm run bench [-- <runs>]",
                async (argv: readonly string[], io: ReturnType<typeof capture>) => benchCli(argv, io),
            ],
        ] as const) {
            it(script, async () => {
                const io = capture();
                assert.equal(await cli(["--help"], io), 0, io.stderr);
                assert.ok(io.stdout.startsWith(usage), io.stdout);
                assert.match(io.stdout, /\nExit: 0 /);
                assert.equal(io.stderr, "");
            });
        }
    });

    describe("a forgotten -- gets the command line that works", () => {
        // npm turns `--stack dev` into a flag and passes `dev` on, and keeps `--dir=.` with its value.
        const renderWithoutDashes = inBackground(() => sh("npm run --silent render --stack dev --dir=."));
        it("render: npm took --stack and --dir", async () => {
            const res = await renderWithoutDashes;
            assert.equal(res.code, 2);
            assert.equal(res.stdout, "");
            const stderr = withoutNpmWarnings(res.stderr);
            assert.ok(
                stderr.includes("npm took --stack, --dir for itself (a `--` is missing): npm run render -- --stack dev --dir .\n"),
                stderr,
            );
            assert.ok(stderr.includes(RENDER_USAGE), stderr);
        });

        it("plan-diff: npm took --stack and --base", async () => {
            // What npm hands the script for `npm run plan-diff --stack=dev --base=HEAD` (see the render case).
            const io = capture();
            const npmEnv = { npm_lifecycle_event: "plan-diff", npm_config_stack: "dev", npm_config_base: "HEAD" };
            assert.equal(await planDiffCli([], io, npmEnv), 2);
            assert.ok(io.stderr.startsWith("--stack is required\n"), io.stderr);
            assert.ok(
                io.stderr.includes(
                    "npm took --stack, --base for itself (a `--` is missing): npm run plan-diff -- --stack dev --base HEAD\n",
                ),
                io.stderr,
            );
        });

        it("no hint for a plain unknown option", async () => {
            // After the `--`, npm takes nothing: the script gets every option, and only its own name in the environment.
            const io = capture();
            assert.equal(await renderCli(["--stack", "dev", "--verbose"], io, { npm_lifecycle_event: "render" }), 2);
            assert.ok(io.stderr.startsWith(`Unknown option '--verbose'`), io.stderr);
            assert.ok(!io.stderr.includes("npm took"), io.stderr);
        });

        const benchUsageError = inBackground(() => sh("npm run --silent bench -- --runs 3"));
        it("bench: a usage error exits 2", async () => {
            const res = await benchUsageError;
            assert.equal(res.code, 2);
            assert.equal(res.stderr, "Unknown option '--runs'\nusage: npm run bench [-- <runs>]\n");
        });
    });

    describe("secrets: offline tools never need their values", () => {
        it("render assumes the secret the program requires, says so on stderr, and stdout stays JSON", async () => {
            const io = capture();
            assert.equal(await renderCli(["--stack", "dev", "--dir", ROOT], io, {}, runOrFailHere), 0, io.stderr);
            assert.equal(io.stderr, ASSUMED);
            const rendered = JSON.parse(io.stdout) as { stack: string; resources: unknown[] };
            assert.equal(rendered.stack, "dev");
            assert.ok(rendered.resources.length > 0);
        });

        it("--no-assume-secrets fails as pulumi up would: exit 2 (a config the program rejects), the program's message", async () => {
            const io = capture();
            assert.equal(await renderCli(["--stack", "dev", "--no-assume-secrets", "--dir", ROOT], io, {}), 2);
            assert.equal(io.stdout, "");
            assert.ok(io.stderr.startsWith("Invalid stack configuration:\n  - nvcf-self-managed:ngcApiKey: is required"), io.stderr);
        });

        const planDiffOfNoChange = inBackground(() =>
            // plan-diff needs a repository with history; a clone keeps this one's untouched (at
            // the same path each run, where its modules load compiled).
            inReusableDir("nvcf-cli-test-plan-diff", async (tmp) => {
                const repo = path.join(tmp, "repo");
                const clone = await sh(`git clone --quiet ${ROOT} ${repo}`, {}, tmp);
                assert.equal(clone.code, 0, clone.stderr);
                fs.symlinkSync(path.join(ROOT, "node_modules"), path.join(repo, "node_modules"), "dir");
                fs.appendFileSync(path.join(repo, "Pulumi.dev.yaml"), "# a comment changes nothing\n");
                const head = (await sh("git rev-parse HEAD", {}, repo)).stdout.trim();
                return { head, ...(await sh(`npm run --silent plan-diff -- --stack dev --base ${head} --dir ${repo}`)) };
            }),
        );
        it("plan-diff assumes it on both sides; exit 0 for no change", async () => {
            // Exit 1 for a change is plan-diff.test.ts's (in-process): each run here renders twice.
            const res = await planDiffOfNoChange;
            assert.equal(res.code, 0, res.stderr);
            assert.match(res.stderr, new RegExp(`^plan-diff: assumed the secret ngcApiKey set at ${res.head} \\(`));
            assert.match(res.stderr, /\nplan-diff: assumed the secret ngcApiKey set in the working tree \(/);
            assert.equal(
                res.stdout,
                `Stack dev: ${res.head.slice(0, 12)} -> working tree\nNo changes.\nPolicy pack on the working tree: no violations\n`,
            );
        });

        it("plan-diff: a bad --base exits 2", async () => {
            const io = capture();
            assert.equal(await planDiffCli(["--stack", "dev", "--base", "no-such-ref", "--dir", ROOT], io, {}), 2);
            assert.ok(io.stderr.includes(PLAN_DIFF_USAGE), io.stderr);
        });
    });

    describe("a stack file render cannot read", () => {
        it("invalid YAML: the file and line, exit 2, no stack trace", async () => {
            const dir = path.join(tmp, "bad-yaml");
            fs.mkdirSync(dir);
            fs.copyFileSync(path.join(ROOT, "Pulumi.yaml"), path.join(dir, "Pulumi.yaml"));
            fs.writeFileSync(path.join(dir, "Pulumi.bad.yaml"), "config:\n  nvcf-self-managed:controlPlane:\n    global: {domain: x\n");
            const io = capture();
            assert.equal(await renderCli(["--stack", "bad", "--dir", dir], io, {}), 2);
            assert.match(io.stderr, /^Pulumi\.bad\.yaml: not valid YAML: .* \(line 4, column 1\)$/m);
            assert.doesNotMatch(io.stderr, /\n\s+at /, "no stack trace");
        });
    });

    describe("a reader that stops early", () => {
        const renderToHead = inBackground(() => sh("npm run --silent render -- --stack dev | head -1"));
        it("render | head -1: exit 0, no EPIPE stack trace", async () => {
            const res = await renderToHead;
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

    describe("the suites' and tools' commands answer --help with their usage, and run nothing", () => {
        const scripts = ["test:e2e", "test:parity", "chart-reads", "bench:e2e", "bench:install", "bench:render", "record:openbao"] as const;
        // One shell for all seven (each a tsx start): each prints its usage between markers.
        const helps = inBackground(() =>
            sh(scripts.map((s) => `echo "<<${s}>>"; npm run --silent ${s} -- --help; echo "<<exit $?>>"`).join("; ")),
        );
        for (const script of scripts) {
            it(script, async () => {
                const { stdout } = await helps;
                const part = new RegExp(`<<${script}>>\\n([\\s\\S]*?)<<exit (\\d+)>>`).exec(stdout);
                assert.ok(part, stdout);
                assert.equal(part[2], "0");
                assert.match(part[1], new RegExp(`^usage: npm run (--silent )?${script}\\b`));
                assert.match(part[1], /\nExit: 0 /);
            });
        }
        it("every npm script that runs a command of this repository is one of those with --help", () => {
            const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> };
            const commands = Object.entries(pkg.scripts)
                .filter(([, line]) => /(scripts|test\/e2e)\/[\w/-]+\.ts\b/.test(line))
                .map(([name]) => name)
                .sort();
            const withHelp = [...scripts, "render", "plan-diff", "bench", "bench:test", "status", "upgrade", "recover", "fleet"].sort();
            assert.deepEqual(commands, withHelp);
        });
    });

    describe("the commands that run pulumi, without the Pulumi CLI on PATH", () => {
        // Only Node.js and the system's own directories: no pulumi.
        const noCli = { PATH: `${path.dirname(process.execPath)}${path.delimiter}/usr/bin${path.delimiter}/bin` };
        const upgrade = inBackground(() => sh("npm run --silent upgrade -- --stack dev --plan", noCli));
        const recover = inBackground(() => sh("npm run --silent recover -- --stack dev --dry-run", noCli));
        for (const [name, run, said] of [
            ["upgrade", upgrade, "upgrade: the stack dev could not be selected: "],
            ["recover", recover, "recover: cannot use the Pulumi project in "],
        ] as const) {
            it(`${name} says the CLI is missing and how to install it`, async () => {
                const res = await run;
                assert.equal(res.code, 2, res.stderr);
                assert.ok(res.stderr.startsWith(said), res.stderr);
                assert.match(res.stderr, /the Pulumi CLI was not found on PATH: install it \(curl -fsSL https:\/\/get\.pulumi\.com \| sh/);
                assert.doesNotMatch(res.stderr, /code: -2/);
            });
        }
    });

    describe("npm run test:e2e without its tools", () => {
        const e2eMissing = e2eWithoutTools("npm run --silent test:e2e");
        it("fails, naming what is missing and how to build it", async () => {
            const res = await e2eMissing;
            assert.equal(res.code, 1);
            assert.equal(res.stdout, "");
            assert.match(
                res.stderr,
                /^end-to-end suite: cannot run: missing bin, etcd, kubeApiserver, kubeControllerManager, pulumi, kubernetesProvider, languageHost, helm, bao, natsServer, jwtPlugin, crds, cassandra, cqlsh /,
            );
            assert.match(res.stderr, /scripts\/e2e\/build-tools\.sh/);
            assert.match(res.stderr, /bao needs OPENBAO_SOURCE, see the script; jwtPlugin and crds need NVCF_SOURCE, see the script/);
        });

        const noneBuilt = e2eWithoutTools("node --import tsx scripts/e2e/run.ts --check");
        it("CI's check skips the suite only when no tool was built here", async () => {
            assert.equal((await noneBuilt).code, 1);
        });

        // Some tools built (here: etcd, as build-tools.sh records it), bao and the rest not.
        const partlyBuilt = `export E2E_ETCD='${process.execPath}'\n`;
        const partCheck = e2eWithoutTools("node --import tsx scripts/e2e/run.ts --check", partlyBuilt);
        const partRun = e2eWithoutTools("npm run --silent test:e2e", partlyBuilt);
        it("with some tools built, CI's check runs the suite, which fails naming each missing tool", async () => {
            const check = await partCheck;
            assert.equal(check.code, 0, check.stderr);
            assert.match(check.stderr, /the suite runs and fails naming them/);
            const run = await partRun;
            assert.equal(run.code, 1);
            assert.match(
                run.stderr,
                /^end-to-end suite: cannot run: missing bin, kubeApiserver, kubeControllerManager, [^(]*bao, natsServer/,
            );
            assert.doesNotMatch(run.stderr.split("(")[0], /etcd/);
        });

        const e2eSkipped = e2eWithoutTools("NVCF_E2E_SKIP_MISSING=1 npm run --silent test:e2e");
        it("skips, and says so, when NVCF_E2E_SKIP_MISSING=1 asks", async () => {
            const res = await e2eSkipped;
            assert.equal(res.code, 0, res.stderr);
            assert.match(res.stdout, /^end-to-end suite: skipped, as NVCF_E2E_SKIP_MISSING=1 asks: missing /);
        });
    });
});
