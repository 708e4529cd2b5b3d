/**
 * Recovery after an interrupted run, on the user's path: a real `pulumi up` (or `destroy`) of the
 * committed project, with the real engine, kubernetes provider and Helm, against a real
 * kube-apiserver, ended the way a lost CI runner or an OOM kill ends it (SIGKILL to the CLI and
 * to every process it started) at points reached by triggers, never by timers: the lock file
 * appearing, a Helm release record being written (an admission webhook the API server calls
 * first), the registration reaching the fake NVCF API. Then `npm run recover` and a plain
 * `pulumi up` (or `destroy`) must bring the stack back with nothing reinstalled and no secret
 * changed. Faked as in e2e.test.ts: ICMS/API Keys, OpenBao, NVIDIA's charts.
 *
 * Tools: scripts/e2e/build-tools.sh (helm included). Run: npm run test:e2e.
 */
import * as assert from "node:assert/strict";
import * as crypto from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, afterEach, before, beforeEach, describe, it } from "node:test";
import { CATALOG } from "../../components/catalog/control-plane";
import { releaseHistory } from "../../lib/health/helm-releases";
import type { Kube as ProgramKube } from "../../lib/kubernetes/client";
import { runToEnd } from "../support/background";
import { FakeControlPlane } from "../support/fake-icms";
import { FakeOpenBao } from "../support/fake-openbao";
import { finalizingNamespaces, e2eSkip, findTools, Kube, LocalCluster } from "./cluster";
import { checkpointFile, locateStack, tornAttrs } from "../../scripts/recover/file-backend";
import { freezeRun, HelmRecordWebhook, killAll, RUN_MARKER, survivorsAfter, type RecordWrite } from "./kill-points";
import { PulumiCli, userCheckout, type CliResult } from "./pulumi-cli";
import { CONTROLLER_NS, e2eStackConfig, GPU, gpuPlane } from "./stack-config";

const REPO = path.resolve(__dirname, "..", "..");
const STACK = "e2e";
const MIN = 60_000;
/** The releases the catalog says keep data: recover never uninstalls them. */
const DATA_RELEASES = new Set(CATALOG.filter((e) => e.holdsData).map((e) => e.name));

const { tools, missing } = findTools();
const skip = e2eSkip({ tools, missing }, "the kill points need the local API server (it calls the suite's webhook on 127.0.0.1)");

/**
 * A lean stack: the control plane without observability and one same-cluster GPU plane
 * (registration, SMB driver, inotify tuner, NVCA operator), no preflight or health gate (no
 * controllers run here); enough Helm releases in parallel, a registration, objects and releases.
 */
function stackConfig(icmsUrl: string, openbaoUrl: string) {
    return e2eStackConfig({
        cluster: { clusterIdentifier: "e2e", skipAwait: true },
        controlPlane: {
            observability: { profile: "disabled" },
            nats: { workerAuth: "nkey" },
            adminIssuerProxy: { enabled: true },
            certManager: { enabled: true, deleteNamespaceOnDestroy: true },
        },
        other: {
            computePlanes: [gpuPlane(icmsUrl)],
            openbaoAccess: { address: openbaoUrl },
            // The smoke check has its cases in e2e.test.ts, which plays the kubelet of the charts' test Pods.
            checks: { preflight: { enabled: false }, healthGate: { enabled: false }, smoke: { helmTests: false } },
        },
    });
}

/** A release's revisions by number, each with its record's uid: a reinstall or a rewritten history changes them. */
type Histories = Map<string, { revision: number; status: string; uid: string }[]>;

describe("recovery: a killed pulumi up or destroy comes back with npm run recover", { skip }, () => {
    let cluster: LocalCluster;
    let kube: Kube;
    let webhook: HelmRecordWebhook;
    const fake = new FakeControlPlane();
    // The address openbaoAccess names; with the admin issuer proxy on and no health gate the stack never calls it.
    const openbao = new FakeOpenBao();
    let work = "";
    let project = "";
    let state = "";
    let env: NodeJS.ProcessEnv = {};
    let cli: PulumiCli;
    const recoverLog: string[] = [];

    /** The program's view of the same cluster (for its Helm record decoding). */
    const programKube = (): ProgramKube => ({
        server: "e2e",
        request: (method, p, body, contentType) => kube.request(method, p, body, contentType),
    });

    before(async () => {
        work = fs.mkdtempSync(path.join(os.tmpdir(), "nvcf-e2e-recover-"));
        cluster = new LocalCluster(tools!);
        await cluster.boot();
        kube = new Kube(cluster.kubeconfig);
        await fake.start();
        await openbao.start();
        webhook = new HelmRecordWebhook(kube, cluster.dir);
        await webhook.start();
        webhook.onWrite = async (w) => {
            const wait = untilKilled;
            if (wait && w.operation === "CREATE" && w.status === "pending-install" && DATA_RELEASES.has(w.release)) {
                await wait;
                return false;
            }
            if (turnAwayInstalls && w.operation === "CREATE" && w.status === "pending-install") return false;
            return onRecord?.(w);
        };
        assert.equal((await kube.request("POST", "/api/v1/namespaces", { metadata: { name: CONTROLLER_NS } })).status, 201);

        ({ project, state, env, cli } = await userCheckout({
            repo: REPO,
            work,
            tools: tools!,
            kubeconfig: cluster.kubeconfig,
            stack: STACK,
            config: stackConfig(fake.icmsUrl, openbao.url),
            secrets: { ngcApiKey: "e2e-ngc-key", cassandraPassword: "e2e-cassandra-password-0123456789", kubeconfig: cluster.kubeconfig },
        }));
    });

    after(async () => {
        try {
            if (cli && process.env.E2E_KEEP !== "1" && (await exported().catch(() => ({ resources: [] }))).resources?.length) {
                await finalizingNamespaces(kube, () => cli.run(["destroy", "--yes", "--skip-preview"], { allowFailure: true })).catch(
                    () => undefined,
                );
            }
        } finally {
            if (process.env.E2E_LOG && cli) fs.writeFileSync(process.env.E2E_LOG, [...cli.log, ...recoverLog].join("\n\n"));
            await webhook?.stop().catch(() => undefined);
            await fake.stop().catch(() => undefined);
            await openbao.stop().catch(() => undefined);
            await cluster?.stop();
            if (process.env.E2E_KEEP !== "1") {
                cluster?.removeDir();
                if (work) fs.rmSync(work, { recursive: true, force: true });
            } else console.log(`# e2e kept: ${work} ${cluster?.dir ?? ""}`);
        }
    });

    /** Each case starts from an empty stack, even after one that failed halfway. */
    beforeEach(async () => {
        let dirty: boolean;
        try {
            const latest = onDisk();
            dirty = (latest.resources ?? []).length > 0 || (latest.pending_operations ?? []).length > 0;
        } catch {
            dirty = true;
        }
        if (fs.existsSync(lockDir()) && fs.readdirSync(lockDir()).length > 0) dirty = true;
        if (!dirty) return;
        await recoverStack();
        await finalizingNamespaces(kube, () => cli.run(["destroy", "--yes", "--skip-preview"], { allowFailure: true }));
    });

    afterEach(() => {
        if (process.env.E2E_LOG && cli) fs.writeFileSync(process.env.E2E_LOG, [...cli.log, ...recoverLog].join("\n\n"));
    });

    /**
     * The checkpoint as the killed run left it on disk, read without the CLI: a kill can leave its
     * sidecar torn (`failed to load checkpoint: EOF`), which only recover repairs. Secrets stay encrypted.
     */
    function onDisk(): { resources?: any[]; pending_operations?: any[] } {
        const file = path.join(state, ".pulumi", "stacks", "nvcf-self-managed", `${STACK}.json`);
        return (JSON.parse(fs.readFileSync(file, "utf8")) as { checkpoint: { latest?: any } }).checkpoint.latest ?? {};
    }

    async function exported(): Promise<{ resources?: any[]; pending_operations?: any[] }> {
        const { stdout } = await cli.run(["stack", "export"]);
        return (JSON.parse(stdout) as { deployment: { resources?: any[]; pending_operations?: any[] } }).deployment;
    }

    /** A command of the user's, in the project with the suite's environment; its transcript goes to the log. */
    async function command(bin: string, args: string[]): Promise<CliResult> {
        const { code, stdout, stderr } = await runToEnd(bin, args, { cwd: project, env });
        recoverLog.push(`$ ${path.basename(bin)} ${args.join(" ")}\n${stdout}${stderr}(exit ${code})`);
        return { code: code ?? 1, stdout, stderr };
    }

    /** `npm run recover`, as the README gives it. */
    const recoverStack = (...more: string[]) => command("npm", ["run", "--silent", "recover", "--", "--stack", STACK, ...more]);

    /** helm, as a user follows recover's steps (the cluster's kubeconfig is $KUBECONFIG). */
    const helm = (args: string[]) => command(tools!.helm, args);

    async function helmSecrets(): Promise<any[]> {
        const list = await kube.get<any>("/api/v1/secrets?labelSelector=owner%3Dhelm");
        return (list?.items ?? []).filter((s: any) => s.type === "helm.sh/release.v1");
    }

    async function histories(): Promise<Histories> {
        const out: Histories = new Map();
        for (const s of await helmSecrets()) {
            const key = `${s.metadata.namespace}/${s.metadata.labels.name}`;
            const revs = out.get(key) ?? [];
            revs.push({ revision: Number(s.metadata.labels.version), status: s.metadata.labels.status, uid: s.metadata.uid });
            out.set(
                key,
                revs.sort((a, b) => a.revision - b.revision),
            );
        }
        return out;
    }

    /** The charts' generated passwords (the fixtures' e2e-generated-<release> Secrets): uid and value. */
    async function generatedSecrets(): Promise<Map<string, string>> {
        const list = await kube.get<any>("/api/v1/secrets");
        return new Map(
            (list?.items ?? [])
                .filter((s: any) => s.metadata.name.startsWith("e2e-generated-"))
                .map((s: any) => [`${s.metadata.namespace}/${s.metadata.name}`, `${s.metadata.uid} ${s.data.password}`]),
        );
    }

    /** What the current case watches for in Helm's record writes (the webhook asks it before storing one). */
    let onRecord: ((w: RecordWrite) => Promise<void> | boolean | void) | undefined;
    /**
     * Turns every install's first record away, until unset. Unlike `onRecord`, which the kill clears,
     * it also holds for a write the run sent just before it was frozen, whose admission call the API
     * server makes after that (a CI run once let cert-manager's record through so).
     */
    let turnAwayInstalls = false;
    /** While set, the install of a release that keeps data waits at the door and is turned away once the run is killed. */
    let untilKilled: Promise<void> | undefined;

    /**
     * Runs `pulumi <args>` and stops it at the point `arm` waits for (arm gets the run's marker and
     * returns the processes it froze), then kills the CLI and every process it started. Unless
     * `dataReleases` is set, Cassandra's and OpenBao's installs are kept out of it (turned away
     * unseen by the killed run), so that recover never finds them pending by chance: the case that
     * wants them says so.
     */
    async function killRunAt(
        arm: (marker: string) => Promise<number[]>,
        { args = ["up", "--yes", "--skip-preview"], dataReleases = false } = {},
    ): Promise<void> {
        const marker = crypto.randomUUID();
        const runner = new PulumiCli(tools!.pulumi, project, { ...env, [RUN_MARKER]: marker });
        let killed!: () => void;
        untilKilled = dataReleases ? undefined : new Promise<void>((r) => (killed = r));
        const run = runner.start(args);
        const ended = run.done.then((r) => {
            throw new Error(`pulumi ${args[0]} ended (exit ${r.code}) before the kill point:\n${(r.stdout + r.stderr).slice(-3000)}`);
        });
        ended.catch(() => undefined);
        let frozen: number[] = [];
        try {
            frozen = await Promise.race([arm(marker), ended]);
        } finally {
            onRecord = undefined;
            killAll(frozen);
            killed?.();
            untilKilled = undefined;
        }
        const result = await run.done;
        cli.log.push(...runner.log);
        assert.notEqual(result.code, 0, "the killed run did not finish");
        assert.deepEqual(await survivorsAfter(marker, 10_000), [], "every process of the run is gone");
    }

    /** A trigger on a Helm record write: the run is frozen before the write is allowed. */
    function atRecordWrite(marker: string, match: (w: RecordWrite) => boolean): Promise<{ frozen: number[]; write: RecordWrite }> {
        return new Promise((resolve) => {
            onRecord = (w) => {
                if (!match(w)) return;
                onRecord = undefined;
                resolve({ frozen: freezeRun(marker), write: w });
            };
        });
    }

    /** Waits until the record write the webhook allowed is stored (the frozen provider never hears back). */
    async function stored(w: RecordWrite): Promise<void> {
        for (let i = 0; i < 200; i++) {
            const history = await releaseHistory(programKube(), w.namespace, w.release);
            if (
                w.operation === "DELETE"
                    ? history.length === 0 || !history.some((r) => r.status === w.status)
                    : history.some((r) => r.status === w.status)
            )
                return;
            await new Promise((r) => setTimeout(r, 50));
        }
        throw new Error(`the ${w.operation} of ${w.namespace}/${w.release} (${w.status}) was never stored`);
    }

    /**
     * After `npm run recover`: the stack has no pending operation; then `pulumi up` succeeds, a
     * preview shows no change, every release is deployed and kept the revisions it had (same
     * records), no generated secret changed, the fake NVCF API holds one registration.
     */
    async function assertRecovers(recovered: CliResult): Promise<void> {
        assert.equal(recovered.code, 0, `npm run recover exited ${recovered.code}:\n${recovered.stdout}\n${recovered.stderr}`);
        assert.match(recovered.stdout, /Done: the next `pulumi up` \(or `pulumi destroy`\) starts from a consistent state\./);
        assert.deepEqual((await exported()).pending_operations ?? [], [], "no pending operation after recover");
        const again = await recoverStack();
        assert.equal(again.code, 0, "recover is idempotent");
        assert.match(again.stdout, /Pending operations:\n {2}- none/);

        const before = await histories();
        const secrets = await generatedSecrets();
        await cli.run(["up", "--yes", "--skip-preview"]);
        await cli.run(["preview", "--expect-no-changes"]);

        const after = await histories();
        for (const [release, revisions] of before) {
            const now = after.get(release) ?? [];
            for (const r of revisions) {
                assert.ok(
                    now.some((n) => n.revision === r.revision && n.uid === r.uid),
                    `${release} kept revision ${r.revision} (not reinstalled): ${JSON.stringify(now)}`,
                );
            }
        }
        const declared = (await exported()).resources?.filter((r) => r.type === "kubernetes:helm.sh/v3:Release") ?? [];
        assert.ok(declared.length > 15, `releases in the stack: ${declared.length}`);
        for (const r of declared) {
            const revs = after.get(`${r.outputs.namespace}/${r.outputs.name}`) ?? [];
            assert.equal(revs[revs.length - 1]?.status, "deployed", `${r.outputs.namespace}/${r.outputs.name} is deployed`);
        }
        const secretsAfter = await generatedSecrets();
        for (const [name, value] of secrets) assert.equal(secretsAfter.get(name), value, `${name} unchanged`);
        assert.ok(secretsAfter.size >= 2, "the charts' generated secrets exist");
        assert.equal([...fake.clusters.values()].filter((c) => c.clusterName === GPU).length, 1, "one registration");
        assert.deepEqual((await exported()).pending_operations ?? [], []);
    }

    /** `pulumi destroy` leaves no resource in the stack, no release, no namespace of the stack, no registration. */
    async function assertDestroyLeavesNothing(
        destroy: () => Promise<unknown> = () => cli.run(["destroy", "--yes", "--skip-preview"]),
    ): Promise<void> {
        const namespaces =
            (await exported()).resources?.filter((r) => r.type === "kubernetes:core/v1:Namespace").map((r) => r.outputs.metadata.name) ??
            [];
        await finalizingNamespaces(kube, destroy);
        assert.deepEqual((await exported()).resources ?? [], [], "the stack holds no resource");
        assert.deepEqual(
            (await helmSecrets()).map((s) => `${s.metadata.namespace}/${s.metadata.name}`),
            [],
            "no Helm release left",
        );
        for (const ns of namespaces) {
            const obj = await kube.get<any>(`/api/v1/namespaces/${ns}`);
            assert.ok(!obj || obj.metadata.deletionTimestamp, `namespace ${ns} left`);
        }
        assert.equal([...fake.clusters.values()].filter((c) => c.clusterName === GPU).length, 0, "deregistered");
        assert.equal(fs.existsSync(lockDir()) ? fs.readdirSync(lockDir()).length : 0, 0, "no lock left");
    }

    const lockDir = () => path.join(state, ".pulumi", "locks", "organization", "nvcf-self-managed", STACK);

    it("killed before any create: the stale lock goes, nothing else to do", { timeout: 10 * MIN }, async () => {
        await killRunAt(async (marker) => {
            // The CLI takes the lock before it starts the program, which takes seconds to declare anything.
            for (let i = 0; !(fs.existsSync(lockDir()) && fs.readdirSync(lockDir()).some((f) => f.endsWith(".json"))); i++) {
                if (i === 6000) throw new Error("the run never took the lock");
                await new Promise((r) => setTimeout(r, 5));
            }
            return freezeRun(marker);
        });
        assert.deepEqual(
            (onDisk().resources ?? []).filter((r) => r.custom),
            [],
            "killed before any create",
        );
        const locked = await cli.run(["up", "--yes", "--skip-preview"], { allowFailure: true });
        assert.match(
            locked.stderr + locked.stdout,
            /error: the stack is currently locked by 1 lock\(s\)/,
            "a symptom docs/operations.md quotes",
        );
        const recovered = await recoverStack();
        assert.match(recovered.stdout, /which no longer runs; will remove it/);
        await assertRecovers(recovered);
        await assertDestroyLeavesNothing();
    });

    it(
        "killed while the first Helm release is pending-install: recover uninstalls it (no data), up installs it",
        { timeout: 10 * MIN },
        async () => {
            let write: RecordWrite | undefined;
            await killRunAt(async (marker) => {
                const hit = await atRecordWrite(marker, (w) => w.operation === "CREATE" && w.status === "pending-install");
                write = hit.write;
                await stored(hit.write);
                return hit.frozen;
            });
            const history = await releaseHistory(programKube(), write!.namespace, write!.release);
            assert.deepEqual(
                history.map((r) => r.status),
                ["pending-install"],
            );
            const recovered = await recoverStack();
            assert.match(
                recovered.stdout,
                new RegExp(`Helm release ${write!.namespace}/${write!.release} .*stuck pending-install.*; will uninstall it`),
            );
            await assertRecovers(recovered);
            await assertDestroyLeavesNothing();
        },
    );

    it(
        "killed right after Helm finished a release, before the engine recorded it: recover records it, nothing reinstalled",
        { timeout: 10 * MIN },
        async () => {
            let write: RecordWrite | undefined;
            await killRunAt(async (marker) => {
                const hit = await atRecordWrite(marker, (w) => w.operation === "UPDATE" && w.status === "deployed");
                write = hit.write;
                await stored(hit.write);
                return hit.frozen;
            });
            const pending = (onDisk().pending_operations ?? []).map((o) => o.resource);
            assert.ok(
                pending.some((r) => r.type === "kubernetes:helm.sh/v3:Release" && r.inputs.name === write!.release),
                "the engine never recorded the finished release",
            );
            const uid = (await histories()).get(`${write!.namespace}/${write!.release}`)?.[0].uid;
            const blocked = await cli.run(["up", "--yes", "--skip-preview"], { allowFailure: true });
            assert.match(
                blocked.stdout + blocked.stderr,
                /the stack is currently locked|failed to load checkpoint: EOF/,
                "a symptom docs/operations.md quotes",
            );
            const recovered = await recoverStack();
            assert.match(
                recovered.stdout,
                new RegExp(`Helm release ${write!.namespace}/${write!.release} .*Helm finished the install .*will record it in the stack`),
            );
            await assertRecovers(recovered);
            assert.equal(
                (await histories()).get(`${write!.namespace}/${write!.release}`)?.[0].uid,
                uid,
                "its revision 1 is the same record",
            );
            await assertDestroyLeavesNothing();
        },
    );

    /**
     * Kills an up once three installs are in flight, Cassandra's among them, each record stored;
     * then makes Cassandra's StatefulSet claim as its controller would (bound to a volume or not).
     */
    async function killWithCassandraInFlight(bound: boolean): Promise<RecordWrite[]> {
        const held: { write: RecordWrite; go: () => void }[] = [];
        await killRunAt(
            async (marker) => {
                const frozen = await new Promise<number[]>((resolve, reject) => {
                    // Below the API server's 30 s webhook deadline, after which it would let them through.
                    const giveUp = setTimeout(() => {
                        onRecord = undefined;
                        held.forEach((h) => h.go());
                        reject(
                            new Error(`never three installs in flight with Cassandra's: ${held.map((h) => h.write.release).join(", ")}`),
                        );
                    }, 20_000);
                    onRecord = (w) => {
                        if (w.operation !== "CREATE" || w.status !== "pending-install") return;
                        return new Promise<void>((go) => {
                            held.push({ write: w, go });
                            if (held.length < 3 || !held.some((h) => h.write.release === "cassandra")) return;
                            clearTimeout(giveUp);
                            onRecord = undefined;
                            const pids = freezeRun(marker);
                            held.forEach((h) => h.go());
                            resolve(pids);
                        });
                    };
                });
                for (const h of held) await stored(h.write);
                return frozen;
            },
            { dataReleases: true },
        );
        const pending = onDisk().pending_operations ?? [];
        assert.ok(pending.filter((o) => o.resource.type === "kubernetes:helm.sh/v3:Release").length >= 3, "releases in flight");
        const claims = "/api/v1/namespaces/cassandra-system/persistentvolumeclaims";
        // One an earlier case left: its namespace went, but no namespace controller deletes what was in it.
        await dropClaim();
        const made = await kube.request("POST", claims, {
            metadata: { name: "data-cassandra-0", labels: { "app.kubernetes.io/instance": "cassandra" } },
            spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } },
        });
        assert.equal(made.status, 201, made.text);
        if (bound) {
            // As the PV controller records a claim it bound (no provisioner runs here).
            const claim = made.body as any;
            const res = await kube.request("PUT", `${claims}/data-cassandra-0/status`, { ...claim, status: { phase: "Bound" } });
            assert.equal(res.status, 200, res.text);
        }
        return held.map((h) => h.write);
    }

    /** Deletes Cassandra's claim as `kubectl delete pvc` and the protection controller (no pod uses it) would. */
    async function dropClaim(): Promise<void> {
        const at = "/api/v1/namespaces/cassandra-system/persistentvolumeclaims/data-cassandra-0";
        await kube.request("DELETE", at);
        await kube.request("PATCH", at, { metadata: { finalizers: null } }, "application/merge-patch+json");
    }

    it(
        "killed with installs in flight, Cassandra's among them, no volume bound: recover asks for --yes first; with it, everything comes back",
        { timeout: 10 * MIN },
        async () => {
            const held = await killWithCassandraInFlight(false);
            const pendingBefore = ((await exported()).pending_operations ?? []).map((o) => o.resource.urn).sort();
            const asked = await recoverStack();
            assert.equal(asked.code, 1, asked.stdout + asked.stderr);
            assert.match(
                asked.stdout,
                /Helm release cassandra-system\/cassandra .*stuck pending-install.*it is a release that holds data \(the catalog marks it as keeping data; .*data-cassandra-0 \(not bound to any volume, made during this install\), so nothing it wrote to a volume was kept\)/,
            );
            assert.match(asked.stdout, /Stopped: the stack's state was not changed/);
            assert.match(asked.stdout, /npm run recover -- --stack e2e --yes uninstalls it/);
            assert.deepEqual(
                ((await exported()).pending_operations ?? []).map((o) => o.resource.urn).sort(),
                pendingBefore,
                "no pending operation changed",
            );
            for (const w of held) {
                const statuses = (await releaseHistory(programKube(), w.namespace, w.release)).map((r) => r.status);
                assert.deepEqual(statuses, ["pending-install"], `${w.release} was left as it was`);
            }

            const recovered = await recoverStack("--yes");
            assert.match(
                recovered.stdout,
                /Helm release cassandra-system\/cassandra .*will uninstall it \(helm -n cassandra-system uninstall cassandra, confirmed with --yes\).*will be new/,
            );
            for (const w of held)
                assert.match(
                    recovered.stdout,
                    new RegExp(`- Helm release ${w.namespace}/${w.release} \\(\\S+\\): uninstalled it, cleared the pending operation`),
                );
            await assertRecovers(recovered);
            await assertDestroyLeavesNothing();
        },
    );

    it(
        "killed with installs in flight, Cassandra's among them, its volume bound: recover resolves the others and leaves Cassandra; the next up fails only there; after the printed steps it comes back",
        { timeout: 10 * MIN },
        async () => {
            const held = await killWithCassandraInFlight(true);
            const partial = await recoverStack();
            assert.equal(partial.code, 1, partial.stdout + partial.stderr);
            assert.match(
                partial.stdout,
                /Helm release cassandra-system\/cassandra .*holds data: .*data-cassandra-0 \(bound to a volume, made during this install\)/,
            );
            assert.match(
                partial.stdout,
                /- Helm release cassandra-system\/cassandra \(\S+\): left it as it was in the cluster \(needs you\)/,
            );
            assert.match(
                partial.stdout,
                /left as they were in the cluster, everything else is resolved; the next `pulumi up` can fail only on these/,
            );
            for (const w of held.filter((x) => x.release !== "cassandra")) {
                assert.match(
                    partial.stdout,
                    new RegExp(`- Helm release ${w.namespace}/${w.release} \\(\\S+\\): uninstalled it, cleared the pending operation`),
                );
                assert.deepEqual(await releaseHistory(programKube(), w.namespace, w.release), [], `${w.release} uninstalled`);
            }
            assert.deepEqual(
                (await releaseHistory(programKube(), "cassandra-system", "cassandra")).map((r) => r.status),
                ["pending-install"],
                "Cassandra was left as it was",
            );

            // What the user may try next: pulumi up fails on Cassandra alone.
            const up = await cli.run(["up", "--yes", "--skip-preview"], { allowFailure: true });
            assert.notEqual(up.code, 0);
            const failed = [...(up.stdout + up.stderr).matchAll(/kubernetes:helm\.sh\/v3:Release \(([^)]+)\):\s+error:/g)].map((m) => m[1]);
            assert.ok(
                failed.length > 0 && failed.every((n) => n.endsWith("cassandra")),
                `failed releases: ${failed.join(", ")}\n${up.stdout}`,
            );
            assert.match(up.stdout + up.stderr, /cannot re-use a name that is still in use/);

            // The printed steps, nothing on the volume to keep: uninstall, delete the claim, recover, up.
            assert.match(
                partial.stdout,
                /helm -n cassandra-system uninstall cassandra, then kubectl -n cassandra-system delete pvc data-cassandra-0/,
            );
            const uninstall = await helm(["-n", "cassandra-system", "uninstall", "cassandra"]);
            assert.equal(uninstall.code, 0, uninstall.stdout + uninstall.stderr);
            await dropClaim();
            await assertRecovers(await recoverStack());
            await assertDestroyLeavesNothing();
        },
    );

    it(
        "killed as the first install began, then run again after pulumi cancel without recover: recover clears the creates the later run left over",
        { timeout: 10 * MIN },
        async () => {
            // This user path needs the kill to land outside Pulumi's non-atomic write of the checkpoint's
            // sidecar; a kill inside it tears the sidecar, which only recover repairs: then kill again.
            for (let attempt = 1; ; attempt++) {
                try {
                    await killRunAt(async (marker) => {
                        const frozen = await new Promise<number[]>((resolve) => {
                            onRecord = (w) => {
                                if (w.operation !== "CREATE" || w.status !== "pending-install") return;
                                // Every install in flight is turned away: the releases stay pending creates of the state alone.
                                turnAwayInstalls = true;
                                resolve(freezeRun(marker));
                                return false;
                            };
                        });
                        return frozen;
                    });
                } finally {
                    turnAwayInstalls = false;
                }
                // Every command reads the checkpoint's own sidecar; a torn backup's (.bak) is rewritten by the next save.
                const backend = locateStack(state, "nvcf-self-managed", STACK);
                const torn = tornAttrs(backend).filter((t) => t.blob === checkpointFile(backend));
                if (torn.length === 0) break;
                const blocked = await cli.run(["cancel", "--yes"], { allowFailure: true });
                assert.match(blocked.stderr, /failed to load checkpoint: EOF/, `torn: ${torn.map((t) => t.attrs).join(", ")}`);
                assert.ok(attempt < 3, "every kill landed inside the sidecar's write");
                await assertRecovers(await recoverStack());
                await finalizingNamespaces(kube, () => cli.run(["destroy", "--yes", "--skip-preview"]));
            }
            const pending = (onDisk().pending_operations ?? []).filter((o) => o.type === "creating").map((o) => o.resource.urn);
            assert.ok(pending.length > 0, "creates were in flight");
            const records = (await helmSecrets()).map((s) => `${s.metadata.namespace}/${s.metadata.name} (${s.metadata.labels.status})`);
            assert.deepEqual(records, [], "no release reached Helm");

            // The user's way past the lock without recover; the run finishes, and Pulumi keeps the old pending creates.
            await cli.run(["cancel", "--yes"]);
            await cli.run(["up", "--yes", "--skip-preview"]);
            const later = await exported();
            const recorded = new Set((later.resources ?? []).map((r) => r.urn));
            const stale = (later.pending_operations ?? []).map((o) => o.resource.urn);
            assert.ok(
                stale.length > 0 && stale.every((u) => recorded.has(u)),
                `left-over creates of recorded resources: ${stale.join(", ")}`,
            );

            const recovered = await recoverStack();
            assert.match(recovered.stdout, /found a pending create left over from an earlier run; a later run created it and recorded it/);
            assert.doesNotMatch(recovered.stdout, /Helm finished the install/);
            await assertRecovers(recovered);
            await assertDestroyLeavesNothing();
        },
    );

    it(
        "killed while the registration call is in flight: recover clears it, up adopts the registration",
        { timeout: 10 * MIN },
        async () => {
            const hold = fake.hold(/^POST \/v1\/accounts\/[^/]+\/clusters$/);
            await killRunAt(async (marker) => {
                await hold.arrived;
                const frozen = freezeRun(marker);
                // ICMS registers the cluster and answers; the frozen provider never reads the answer.
                hold.release();
                for (let i = 0; [...fake.clusters.values()].every((c) => c.clusterName !== GPU); i++) {
                    if (i === 200) throw new Error("the fake never stored the registration");
                    await new Promise((r) => setTimeout(r, 50));
                }
                return frozen;
            });
            assert.ok(
                (onDisk().pending_operations ?? []).some((o) => o.resource.type === "pulumi-nodejs:dynamic/nvcf:ClusterRegistration"),
                "the registration's create is pending",
            );
            const recovered = await recoverStack();
            assert.match(recovered.stdout, /ClusterRegistration .*its create adopts a registration ICMS already holds/);
            await assertRecovers(recovered);
            await assertDestroyLeavesNothing();
        },
    );

    it(
        "stopped with one Ctrl-C: the run ends by itself; recover finds it consistent; then a destroy killed halfway recovers too",
        { timeout: 15 * MIN },
        async () => {
            const run = cli.start(["up", "--yes", "--skip-preview"]);
            const interrupt = new Promise<void>((resolve) => {
                onRecord = (w) => {
                    if (w.operation !== "CREATE" || w.status !== "pending-install") return;
                    onRecord = undefined;
                    run.child.kill("SIGINT");
                    resolve();
                };
            });
            await Promise.race([
                interrupt,
                run.done.then((r) => {
                    throw new Error(`pulumi up ended (exit ${r.code}) before any release install:\n${(r.stdout + r.stderr).slice(-3000)}`);
                }),
            ]);
            const interrupted = await run.done;
            assert.notEqual(interrupted.code, 0, "the run was cancelled");
            await assertRecovers(await recoverStack());

            // destroy, killed once half of the releases are uninstalled, in the middle of the next uninstall.
            const total = (await histories()).size;
            const gone = new Set<string>();
            await killRunAt(
                async (marker) => {
                    const frozen = await new Promise<{ frozen: number[]; write: RecordWrite }>((resolve) => {
                        onRecord = (w) => {
                            if (w.operation === "DELETE") gone.add(`${w.namespace}/${w.release}`);
                            if (w.operation === "UPDATE" && w.status === "uninstalling" && gone.size * 2 >= total) {
                                onRecord = undefined;
                                resolve({ frozen: freezeRun(marker), write: w });
                            }
                        };
                    });
                    await stored(frozen.write);
                    return frozen.frozen;
                },
                { args: ["destroy", "--yes", "--skip-preview"] },
            );
            assert.ok(
                (onDisk().pending_operations ?? []).some((o) => o.type === "deleting"),
                "a delete was in flight",
            );
            const recovered = await recoverStack();
            assert.equal(recovered.code, 0, recovered.stdout + recovered.stderr);
            assert.match(recovered.stdout, /an interrupted uninstall/);
            assert.deepEqual((await exported()).pending_operations ?? [], []);
            await assertDestroyLeavesNothing();
        },
    );
});
