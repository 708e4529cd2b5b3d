/**
 * A shared backend that locks (issue #49): the state of a stack in Pulumi's DIY PostgreSQL
 * backend (`postgres://`, pulumi/pulumi pkg/backend/diy/postgres) on a real PostgreSQL server,
 * and in its S3 backend (`s3://`) on an S3-compatible server (gofakes3), each used by two
 * checkouts of the project as two people (or CI and a laptop) use one backend: one logged in
 * with `pulumi login <url>`, the other through PULUMI_BACKEND_URL, each with its own PULUMI_HOME,
 * the credentials only in the environment (PGPASSWORD; the AWS keys). With the real CLI, engine, kubernetes
 * provider and Helm against a real kube-apiserver: `pulumi up` keeps its checkpoint in the
 * backend (PostgreSQL's table `pulumi_state`; the bucket, reached at the URL's `endpoint` with
 * `use_path_style`); a second `up` while another run holds the lock is refused and changes nothing;
 * a run killed with SIGKILL leaves its lock, which `npm run recover` removes (`pulumi cancel`),
 * after which `up` and `destroy` succeed. The kill is triggered by the lock appearing in the
 * backend, never by a timer.
 *
 * Tools: scripts/e2e/build-tools.sh (gofakes3 with its `s3` tool), and a PostgreSQL server
 * (initdb, postgres, psql; Debian's postgresql-15). Run: npm run test:e2e.
 */
import * as assert from "node:assert/strict";
import * as crypto from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, before, describe, it } from "node:test";
import { stringify as toYaml } from "yaml";
import { finalizingNamespaces, e2eSkip, findTools, Kube, LocalCluster } from "./cluster";
import { freezeRun, killAll, RUN_MARKER, survivors, survivorsAfter } from "./kill-points";
import { findS3Server } from "../../scripts/e2e/tools";
import { backendUserEnv, findPostgres, PostgresServer } from "./postgres";
import { S3Server } from "./s3";
import type { SharedBackend } from "./shared-backend-server";
import { copyProject, LOCKED_BY_ONE, PulumiCli, type CliResult } from "./pulumi-cli";
import { LEAN_STACK_CONFIG as STACK_CONFIG } from "./stack-config";
import { runToEnd } from "../support/background";

const REPO = path.resolve(__dirname, "..", "..");
const PROJECT = "nvcf-self-managed";
const STACK = "shared";
const MIN = 60_000;
/** This machine's name, as a lock names its holder's, for a pattern. */
const HOST = os.hostname().replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

const { tools, missing } = findTools();
const postgres = findPostgres();
const s3 = findS3Server();
/** Each backend the suite runs: its server, or why it cannot start here. */
const BACKENDS: readonly { name: string; server: () => SharedBackend }[] = [
    {
        name: "PostgreSQL",
        server: () => {
            if (!postgres.tools) throw new Error(`end-to-end tools: ${postgres.missing}`);
            return new PostgresServer(postgres.tools);
        },
    },
    {
        name: "S3",
        server: () => {
            if (!s3.bin) throw new Error(`end-to-end tools: ${s3.missing}`);
            return new S3Server(s3.bin);
        },
    },
];
const skip = e2eSkip({ tools, missing }, "runs on the suite's own API server (it finalizes the stack's namespaces on destroy)");

/** A run stopped while it holds the stack's lock: its lock's key, its CLI's pid, how to find and end it. */
interface Holder {
    readonly lockKey: string;
    readonly pid: number;
    readonly marker: string;
    readonly frozen: number[];
    readonly done: Promise<CliResult>;
}

for (const kind of BACKENDS)
    describe(`a shared backend that locks: the stack's state in ${kind.name}`, { skip }, () => {
        let cluster: LocalCluster;
        let kube: Kube;
        let pg: SharedBackend;
        let CHECKPOINT_KEY = "";
        let work = "";
        /** CI's checkout, logged in to the backend; the one `npm run recover` runs in. */
        let ci: PulumiCli;
        /** A person's checkout: PULUMI_BACKEND_URL, its own PULUMI_HOME. */
        let laptop: PulumiCli;
        const otherLogs: string[] = [];
        const markers: string[] = [];
        /** The lock a killed run left, for the recover case. */
        let leftLock: { key: string; pid: number } | undefined;

        before(async () => {
            work = fs.mkdtempSync(path.join(os.tmpdir(), "nvcf-e2e-shared-"));
            pg = kind.server();
            CHECKPOINT_KEY = pg.checkpointKey(PROJECT, STACK);
            cluster = new LocalCluster(tools!);
            const kubeconfigFile = path.join(work, "kubeconfig");
            const { env: userEnv } = backendUserEnv({
                work,
                repo: REPO,
                cliBin: tools!.bin,
                backend: pg,
                passphrase: "e2e-passphrase",
                kubeconfig: kubeconfigFile,
            });
            // The API server boots while the backend starts and the stack is made in it.
            await Promise.all([
                cluster.boot(),
                (async () => {
                    await pg.start();
                    copyProject(REPO, path.join(work, "ci"));
                    copyProject(REPO, path.join(work, "laptop"));
                    ci = new PulumiCli(tools!.pulumi, path.join(work, "ci"), userEnv("ci-home"));
                    laptop = new PulumiCli(tools!.pulumi, path.join(work, "laptop"), userEnv("laptop-home", pg.url));
                    await ci.run(["login", pg.url]);
                    fs.writeFileSync(path.join(work, "ci", `Pulumi.${STACK}.yaml`), toYaml({ config: STACK_CONFIG }));
                    await ci.run(["stack", "init", STACK, "--secrets-provider", "passphrase"]);
                    await ci.run(["config", "set", "--secret", "ngcApiKey", "e2e-ngc-key"]);
                    await ci.run(["config", "set", "--secret", "cassandraPassword", "e2e-cassandra-password-0123456789"]);
                })(),
            ]);
            kube = new Kube(cluster.kubeconfig);
            fs.writeFileSync(kubeconfigFile, cluster.kubeconfig, { mode: 0o600 });
            await ci.run(["config", "set", "--secret", "kubeconfig", cluster.kubeconfig]);
            // The stack file is committed with the project: the laptop's checkout has it as CI's does.
            fs.copyFileSync(path.join(work, "ci", `Pulumi.${STACK}.yaml`), path.join(work, "laptop", `Pulumi.${STACK}.yaml`));
            await laptop.run(["stack", "select", STACK]);
        });

        after(async () => {
            try {
                // A run the test froze must not outlive it.
                for (const marker of markers) killAll(survivors(marker));
                if (process.env.E2E_LOG) fs.writeFileSync(process.env.E2E_LOG, transcript());
            } finally {
                await cluster?.stop();
                await pg?.stop();
                if (process.env.E2E_KEEP !== "1") {
                    cluster?.removeDir();
                    pg?.removeDir();
                    if (work) fs.rmSync(work, { recursive: true, force: true });
                } else console.log(`# e2e kept: ${work} ${cluster?.dir ?? ""} ${pg?.dir ?? ""}`);
            }
        });

        /** Every command's output, for the log and for the check that no password shows in any. */
        const transcript = () => [...(ci?.log ?? []), ...(laptop?.log ?? []), ...otherLogs].join("\n\n");

        /** Every key and its last write: what a command changed in the backend. */
        const rows = () => pg.rows();

        async function exported(cli: PulumiCli): Promise<{ resources?: any[]; pending_operations?: any[] }> {
            const { stdout } = await cli.run(["stack", "export"]);
            return (JSON.parse(stdout) as { deployment: { resources?: any[] } }).deployment;
        }

        async function helmReleases(): Promise<string[]> {
            const list = await kube.get<any>("/api/v1/secrets?labelSelector=owner%3Dhelm");
            return (list?.items ?? [])
                .filter((s: any) => s.type === "helm.sh/release.v1")
                .map((s: any) => `${s.metadata.namespace}/${s.metadata.labels.name} ${s.metadata.labels.status}`)
                .sort();
        }

        /**
         * Starts `pulumi up` in CI's checkout and stops it (SIGSTOP, the CLI and every process it
         * started) as soon as its lock's row is in the table: it holds the lock, and does nothing more.
         */
        async function holdLock(): Promise<Holder> {
            const marker = crypto.randomUUID();
            markers.push(marker);
            const runner = new PulumiCli(tools!.pulumi, path.join(work, "ci"), { ...ci.env, [RUN_MARKER]: marker });
            const run = runner.start(["up", "--yes", "--skip-preview"]);
            const done = run.done.then((r) => {
                otherLogs.push(...runner.log);
                return r;
            });
            let ended = false;
            done.then(() => (ended = true)).catch(() => undefined);
            let keys: string[];
            const deadline = Date.now() + 3 * MIN;
            while ((keys = await pg.lockKeys(PROJECT, STACK)).length === 0) {
                if (Date.now() > deadline) throw new Error("the run took no lock in 3 minutes");
                if (ended) {
                    const r = await done;
                    throw new Error(`pulumi up ended (exit ${r.code}) before its lock was seen:\n${(r.stdout + r.stderr).slice(-3000)}`);
                }
            }
            const frozen = freezeRun(marker);
            assert.equal(keys.length, 1, `one lock: ${keys.join(", ")}`);
            return { lockKey: keys[0], pid: run.child.pid!, marker, frozen, done };
        }

        /** SIGKILL to the held run's every process, as a lost CI runner or an OOM kill ends it. */
        async function kill(holder: Holder): Promise<void> {
            killAll(holder.frozen);
            const result = await holder.done;
            assert.notEqual(result.code, 0, "the killed run did not finish");
            assert.deepEqual(await survivorsAfter(holder.marker, 10_000), [], "every process of the killed run is gone");
        }

        it(
            "pulumi up keeps the stack's checkpoint in the backend; the other checkout reads the same state",
            { timeout: 10 * MIN },
            async () => {
                await ci.run(["up", "--yes", "--skip-preview"]);
                const state = await exported(ci);
                const declared = (state.resources ?? []).filter((r) => r.type === "kubernetes:helm.sh/v3:Release");
                assert.ok(declared.length >= 10, `releases in the stack: ${declared.length}`);
                assert.deepEqual(
                    await helmReleases(),
                    declared.map((r) => `${r.outputs.namespace}/${r.outputs.name} deployed`).sort(),
                    "every release of the stack is deployed, and no other",
                );

                const keys = (await rows()).split("\n").map((l) => l.split(" ")[0]);
                assert.ok(keys.includes(CHECKPOINT_KEY), `the backend holds ${CHECKPOINT_KEY}: ${keys.join(", ")}`);
                assert.deepEqual(await pg.lockKeys(PROJECT, STACK), [], "no lock once up ended");
                const checkpoint = JSON.parse(await pg.blob(CHECKPOINT_KEY)) as { checkpoint: { stack: string; latest: unknown } };
                assert.equal(checkpoint.checkpoint.stack, `organization/${PROJECT}/${STACK}`);
                assert.deepEqual(checkpoint.checkpoint.latest, state, "the backend's checkpoint is what pulumi stack export prints");
                assert.deepEqual(await exported(laptop), state, "the laptop's checkout reads the same state");
            },
        );

        it(
            "a second pulumi up while another run holds the lock is refused with the backend's lock message and changes nothing",
            { timeout: 10 * MIN },
            async () => {
                const holder = await holdLock();
                try {
                    const before = { state: await exported(laptop), rows: await rows() };
                    const refused = await laptop.run(["up", "--yes", "--skip-preview"], { allowFailure: true });
                    const said = refused.stdout + refused.stderr;
                    assert.notEqual(refused.code, 0, "the laptop's up is refused");
                    assert.match(said, LOCKED_BY_ONE);
                    const holderLine = said.split("\n").find((l) => l.includes(`/${holder.lockKey}`)) ?? "";
                    assert.match(holderLine, new RegExp(`: created by .+@${HOST} \\(pid ${holder.pid}\\) at \\S+$`), said);
                    const lock = JSON.parse(await pg.blob(holder.lockKey)) as { pid: number; hostname: string };
                    assert.deepEqual([lock.pid, lock.hostname], [holder.pid, os.hostname()], "the lock is the holder's");

                    assert.deepEqual(await pg.lockKeys(PROJECT, STACK), [holder.lockKey], "the laptop left no lock and removed none");
                    assert.equal(await rows(), before.rows, "nothing in the backend was written");
                    assert.deepEqual(await exported(laptop), before.state, "the stack's state is unchanged");
                } finally {
                    await kill(holder);
                    leftLock = { key: holder.lockKey, pid: holder.pid };
                }
            },
        );

        it(
            "a run killed with SIGKILL leaves its lock; npm run recover removes it, then up and destroy succeed",
            { timeout: 10 * MIN },
            async () => {
                if (!leftLock) {
                    const holder = await holdLock();
                    await kill(holder);
                    leftLock = { key: holder.lockKey, pid: holder.pid };
                }
                assert.deepEqual(await pg.lockKeys(PROJECT, STACK), [leftLock.key], "the killed run's lock is left");

                const recovered = await recoverStack();
                assert.equal(recovered.code, 0, `npm run recover exited ${recovered.code}:\n${recovered.stdout}\n${recovered.stderr}`);
                assert.match(
                    recovered.stdout,
                    /Locks: this backend's locks are not files here; a lock met below is judged from what the CLI reports\./,
                );
                const lines = recovered.stdout.split("\n");
                const at = lines.findIndex((l) => l.includes(`/${leftLock!.key}`));
                const lockLine = lines[at] ?? "";
                assert.equal(lines[at - 1], "Locks the CLI reports:", recovered.stdout);
                assert.match(
                    lockLine,
                    new RegExp(`held by .+@${HOST} \\(pid ${leftLock.pid}\\).*, which no longer runs$`),
                    recovered.stdout,
                );
                assert.match(recovered.stdout, /done: the lock\(s\) cancelled \(pulumi cancel\)/);
                assert.match(recovered.stdout, /Done: the next `pulumi up` \(or `pulumi destroy`\) starts from a consistent state\./);
                assert.deepEqual(await pg.lockKeys(PROJECT, STACK), [], "recover removed the lock");

                await ci.run(["up", "--yes", "--skip-preview"]);
                assert.deepEqual(await pg.lockKeys(PROJECT, STACK), [], "no lock after up");
                await finalizingNamespaces(kube, () => ci.run(["destroy", "--yes", "--skip-preview"]));
                assert.deepEqual((await exported(ci)).resources ?? [], [], "the stack holds no resource");
                assert.deepEqual(await helmReleases(), [], "no Helm release left");
                assert.deepEqual(await pg.lockKeys(PROJECT, STACK), [], "no lock after destroy");
                assert.ok(!pg.leaks(transcript()), `no command's output shows a ${pg.name} credential`);
            },
        );

        /** `npm run recover`, as the README gives it, in CI's checkout (logged in to the backend). */
        async function recoverStack(): Promise<CliResult> {
            const res = await runToEnd("npm", ["run", "--silent", "recover", "--", "--stack", STACK], {
                cwd: path.join(work, "ci"),
                env: ci.env,
            });
            otherLogs.push(`$ npm run recover -- --stack ${STACK}\n${res.stdout}${res.stderr}(exit ${res.code})`);
            return { code: res.code ?? 1, stdout: res.stdout, stderr: res.stderr };
        }
    });
