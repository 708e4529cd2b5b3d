import assert from "node:assert/strict";
import { before, describe, test } from "node:test";
import { RELEASE_NAMES } from "../components/catalog/control-plane";
import { parseSettings } from "../config/settings";
import { kubeProgressStore, type Progress } from "../scripts/upgrade/progress";
import { ROLLBACK_BOUNDARY, runUpgrade, type UpgradeOptions } from "../scripts/upgrade/run";
import { STAGES, type StageId } from "../scripts/upgrade/stages";
import { statusTargets } from "../scripts/status/targets";
import { devConfig, runProgram, withConfig, PROJECT, type ProgramRun } from "./support/harness";
import { devRaw } from "./support/raw-config";
import { fixtureRelease, stream, WorldEngine, WorldKube, worldResources } from "./support/upgrade-world";
import { AGENT_STATUS, type AgentStatus } from "../lib/contracts/nvca";
import { conform } from "./support/conformance";
import type { JszAnswer } from "../lib/nats/contract";
import { healthAnswer } from "./support/openbao-answers";

/**
 * The upgrade command's runner against an in-process world (test/support/upgrade-world.ts):
 * fixture bundle releases A and B, the real program's resources (a mock run of the dev stack
 * with one GPU cluster), a cluster whose state the tests break and repair between two runs.
 */
const PLANE = { clusterName: "gpu-a", cluster: { sameAsControlPlane: true } };
const A = fixtureRelease("1.0.0");
const B = fixtureRelease("1.1.0", {
    "nvca-operator": "1.22.0",
    "openbao-server": "0.30.26",
    nats: "0.7.2",
    cassandra: "0.20.2",
    api: "1.25.2",
    "state-metrics": "1.0.3",
});
const settings = parseSettings(devRaw({ values: { computePlanes: [PLANE] } }), { releaseNames: RELEASE_NAMES });
let program: ProgramRun;

before(async () => {
    const { config, secretKeys } = devConfig();
    program = await runProgram(withConfig(config, { [`${PROJECT}:computePlanes`]: [PLANE] }), secretKeys);
});

/** What the tests break: each flag makes one stage's check fail. */
interface Faults {
    backendHealth: AgentStatus;
    natsMessages: number;
    sealedMember: boolean;
    failedMigration: boolean;
    routeAccepted: boolean;
    monitoringReady: boolean;
}

class World {
    readonly kube = new WorldKube();
    readonly engine: WorldEngine;
    readonly out: string[] = [];
    readonly faults: Faults = {
        backendHealth: AGENT_STATUS.healthy,
        natsMessages: 0,
        sealedMember: false,
        failedMigration: false,
        routeAccepted: true,
        monitoringReady: true,
    };
    clock = Date.parse("2026-12-01T10:00:00Z");
    /** Called as the command waits between two rounds of checks. */
    onSleep?: () => void;

    constructor(from = A, to = B) {
        const version = (r: { name: string; plane?: string }, bundle: typeof A) =>
            r.plane ? bundle.computePlane.charts[r.name] : bundle.controlPlane.charts[r.name];
        this.engine = new WorldEngine(this.kube, worldResources(program.resources, [PLANE.clusterName], version, from, to), to);
        this.engine.writeReceipt(from.release);
        const k = this.kube;
        const f = this.faults;
        // The gateway's route, NVCA's backend and agent, as their controllers report them.
        k.proxy(/^\/apis\/gateway\.networking\.k8s\.io\/v1\/namespaces\/envoy-gateway\/httproutes$/, () => {
            const status = {
                parents: [
                    {
                        parentRef: { name: "nvcf-gateway" },
                        conditions: [
                            {
                                type: "Accepted",
                                status: f.routeAccepted ? "True" : "False",
                                reason: f.routeAccepted ? "Accepted" : "NotAllowedByListeners",
                            },
                        ],
                    },
                ],
            };
            const body = { items: [{ metadata: { name: "api", namespace: "envoy-gateway" }, status }] };
            return { status: 200, body, text: "" };
        });
        k.proxy(/^\/apis\/nvcf\.nvidia\.io\/v1\/namespaces\/nvca-operator\/nvcfbackends\/gpu-a$/, (path) => {
            const body = { status: { agentStatus: f.backendHealth } };
            conform(path, body);
            return { status: 200, body, text: "" };
        });
        k.api.put("/api/v1/namespaces/nvca-system/pods/nvca-0", {
            metadata: { name: "nvca-0" },
            status: { phase: "Running", conditions: [{ type: "Ready", status: "True" }] },
        });
        // NATS: one server, the streams NVCF keeps in memory.
        k.api.put("/api/v1/namespaces/nats-system/pods/nats-0", {
            metadata: { name: "nats-0" },
            spec: { containers: [{ name: "nats", ports: [{ name: "monitor", containerPort: 8222 }] }] },
        });
        k.proxy(/pods\/nats-0:8222\/proxy\/jsz$/, () => {
            const body: JszAnswer = {
                server_id: "N1",
                total: 1,
                account_details: [{ name: "APP", id: "APP", stream_detail: [stream("requests", f.natsMessages)] }],
            };
            return { status: 200, body, text: "" };
        });
        // OpenBao: three members, the first active.
        for (let i = 0; i < 3; i++)
            k.api.put(`/api/v1/namespaces/vault-system/pods/openbao-server-${i}`, { metadata: { name: `openbao-server-${i}` } });
        k.proxy(/pods\/openbao-server-(\d):8200\/proxy\/v1\/sys\/health$/, (path) => {
            const i = Number(/openbao-server-(\d)/.exec(path)![1]);
            const sealed = f.sealedMember && i === 2;
            const body = healthAnswer({ sealed, standby: i !== 0, cluster_id: "cid-1" });
            return { status: 200, body, text: "" };
        });
        k.api.put("/apis/apps/v1/namespaces/vault-system/statefulsets/openbao-server", {
            metadata: { name: "openbao-server", generation: 1 },
            spec: { replicas: 3 },
            status: { replicas: 3, readyReplicas: 3, updatedReplicas: 3, observedGeneration: 1 },
        });
        // The migrations, and a monitoring workload.
        k.proxy(/^\/apis\/batch\/v1\/namespaces\/cassandra-system\/jobs$/, () => {
            const status = f.failedMigration
                ? { failed: 1, conditions: [{ type: "Failed", status: "True", message: "BackoffLimitExceeded" }] }
                : { succeeded: 1, conditions: [{ type: "Complete", status: "True" }] };
            return { status: 200, body: { items: [{ metadata: { name: "cassandra-migrations" }, status }] }, text: "" };
        });
        k.proxy(/^\/apis\/apps\/v1\/namespaces\/monitoring\/deployments$/, () => {
            const item = {
                metadata: { name: "vmsingle", generation: 1 },
                spec: { replicas: 1 },
                status: { readyReplicas: f.monitoringReady ? 1 : 0, observedGeneration: 1 },
            };
            return { status: 200, body: { items: [item] }, text: "" };
        });
    }

    async run(options: Partial<UpgradeOptions> = {}, chosen = settings, signal?: AbortSignal): Promise<number> {
        this.out.length = 0;
        const [control, plane] = statusTargets(chosen, [], { planes: new Map() }, B).map((target) => ({ target, kube: this.kube }));
        return runUpgrade(
            { stack: "dev", plan: false, restart: false, queues: [], timeoutSeconds: 3, pollSeconds: 1, ...options },
            {
                engine: this.engine,
                settings: chosen,
                clusters: { control, planes: [{ ...plane, name: PLANE.clusterName }] },
                progress: kubeProgressStore(this.kube),
                releases: [A, B],
                out: (t) => this.out.push(t),
                sleep: async (ms) => {
                    this.clock += ms;
                    this.onSleep?.();
                },
                now: () => new Date(this.clock),
                ...(signal ? { signal } : {}),
            },
        );
    }

    text(): string {
        return this.out.join("");
    }

    async progress(): Promise<Progress | undefined> {
        return kubeProgressStore(this.kube).read();
    }

    /** The release names each targeted update deployed, update by update. */
    updatedReleases(): string[][] {
        return this.engine.ups.map((targets) =>
            targets.map((urn) => this.engine.resources.find((r) => r.urn === urn)?.release?.name ?? urn.split("::").pop()!),
        );
    }
}

/** What each stage with an update deploys, in the runbook's order. */
const STAGE_UPDATES: [StageId, string[]][] = [
    ["compute-planes", ["nvca-operator"]],
    ["openbao", ["openbao-server"]],
    ["dependencies", ["nats", "cassandra"]],
    ["core", ["api"]],
    ["observability", ["state-metrics"]],
    ["receipt", ["bundle-receipt"]],
];
const stageIndex = (id: StageId) => STAGES.findIndex((s) => s.id === id);

describe("npm run upgrade: the runbook's stages in order", () => {
    test("from A to B: each stage's targeted update in the runbook's order, its checks, the receipt, a final preview without change", async () => {
        const w = new World();
        assert.equal(await w.run(), 0, w.text());
        assert.deepEqual(
            w.updatedReleases().map((u) => [...u].sort()),
            STAGE_UPDATES.map(([, u]) => [...u].sort()),
        );
        const text = w.text();
        let at = 0;
        for (const [i, stage] of STAGES.entries()) {
            const header = text.indexOf(`== stage ${i + 1}/9: ${stage.title}`);
            assert.ok(header > at, `stage ${stage.title} in order`);
            at = header;
        }
        for (const check of [
            "nvcfbackend",
            "nats-drained",
            "openbao-members",
            "openbao-rollout",
            "jobs",
            "routes",
            "workloads",
            "receipt",
        ]) {
            assert.match(text, new RegExp(`ok   [^\\n]*${check}`), `check ${check} consulted`);
        }
        assert.match(text, /ok {3}nats-drained: 1 single-replica memory stream is present and empty on 1 NATS server \(APP\/requests\)/);
        assert.match(text, /the preview shows no change/);
        assert.match(text, /Done: the environment runs bundle release 1\.1\.0/);
        const receipt = (await w.kube.request("GET", "/api/v1/namespaces/nvcf/configmaps/nvcf-upgrade-receipt")).body;
        assert.equal(receipt.data.bundleRelease, "1.1.0");
        assert.equal(JSON.parse(receipt.data.controlPlane).nats, "0.7.2");
        assert.equal(JSON.parse(receipt.data.computePlanes)["gpu-a"]["nvca-operator"], "1.22.0");
        const progress = await w.progress();
        assert.ok(progress?.completedAt);
        assert.deepEqual(
            Object.values(progress!.stages).map((s) => s.state),
            STAGES.map(() => "passed"),
        );
        assert.deepEqual(progress?.openbaoBaseline, { clusterId: "cid-1" });
    });

    const failures: [StageId, string, (w: World) => void, (w: World) => void, RegExp][] = [
        [
            "compute-planes",
            "an unhealthy NVCFBackend",
            (w) => (w.faults.backendHealth = AGENT_STATUS.unhealthy),
            (w) => (w.faults.backendHealth = AGENT_STATUS.healthy),
            /compute plane gpu-a: nvcfbackend: the NVCFBackend gpu-a reports "Unhealthy"\n {5}Fix: kubectl -n nvca-operator describe nvcfbackend gpu-a/,
        ],
        [
            "drain",
            "messages left in a memory stream",
            (w) => (w.faults.natsMessages = 5),
            (w) => (w.faults.natsMessages = 0),
            /nats-drained: not drained: APP\/requests on nats-0: 5 messages/,
        ],
        [
            "openbao",
            "a sealed member",
            (w) => (w.faults.sealedMember = true),
            (w) => (w.faults.sealedMember = false),
            /openbao-members: openbao-server-2 is sealed/,
        ],
        [
            "dependencies",
            "a failed migration Job",
            (w) => (w.faults.failedMigration = true),
            (w) => (w.faults.failedMigration = false),
            /jobs: failed: cassandra-system\/cassandra-migrations \(BackoffLimitExceeded\)\n {5}Fix: kubectl -n cassandra-system logs job\/cassandra-migrations/,
        ],
        [
            "core",
            "a route not Accepted",
            (w) => (w.faults.routeAccepted = false),
            (w) => (w.faults.routeAccepted = true),
            /routes: not Accepted: envoy-gateway\/api \(nvcf-gateway: NotAllowedByListeners\)/,
        ],
        [
            "observability",
            "a monitoring workload not ready",
            (w) => (w.faults.monitoringReady = false),
            (w) => (w.faults.monitoringReady = true),
            /workloads: not ready: deployment monitoring\/vmsingle \(0\/1 ready\)/,
        ],
        [
            "receipt",
            "the receipt's update failing",
            (w) =>
                (w.engine.failUp = (t) =>
                    t.some((u) => u.endsWith("::bundle-receipt")) ? 'configmaps "nvcf-upgrade-receipt" is forbidden' : undefined),
            (w) => (w.engine.failUp = undefined),
            /error: configmaps "nvcf-upgrade-receipt" is forbidden/,
        ],
        [
            "final-preview",
            "a change left after the receipt",
            (w) =>
                (w.engine.afterUp = (t) => {
                    if (t.some((u) => u.endsWith("::bundle-receipt")))
                        w.engine.resources.find((r) => r.urn.endsWith("::control-plane-namespaces-nvcf"))!.pending = true;
                }),
            (w) => {
                w.engine.afterUp = undefined;
                w.engine.resources.find((r) => r.urn.endsWith("::control-plane-namespaces-nvcf"))!.pending = false;
            },
            /final-preview: the preview still shows 1 change: update kubernetes:core\/v1:Namespace control-plane-namespaces-nvcf/,
        ],
    ];

    for (const [stage, what, breakIt, repair, message] of failures) {
        test(`stops at stage ${stage} on ${what}, says what failed and how to look closer, and a rerun resumes there without repeating a passed stage`, async () => {
            const w = new World();
            breakIt(w);
            const n = STAGES.findIndex((s) => s.id === stage) + 1;
            assert.equal(await w.run(), 1, w.text());
            assert.match(w.text(), message);
            assert.match(w.text(), new RegExp(`FAILED: stage ${n}/9`));
            assert.match(w.text(), new RegExp(`run npm run upgrade -- --stack dev: it resumes at stage ${n}/9`));
            const first = await w.progress();
            for (const s of STAGES.slice(0, n - 1)) assert.equal(first?.stages[s.id]?.state, "passed", `${s.id} passed`);
            assert.equal(first?.stages[stage]?.state, "failed");
            assert.equal(first?.completedAt, undefined);
            const updatesBefore = w.engine.ups.length;
            const revisions = Object.fromEntries(["nvca-operator", "openbao-server", "nats", "api"].map((r) => [r, w.engine.revision(r)]));

            repair(w);
            assert.equal(await w.run(), 0, w.text());
            for (const s of STAGES.slice(0, n - 1))
                assert.ok(w.text().includes(`== stage ${STAGES.indexOf(s) + 1}/9: ${s.title}: passed at 2026-`), s.id);
            assert.ok(
                w.text().includes(`== stage ${n}/9: ${STAGES[n - 1].title}\n`) ||
                    w.text().includes(`== stage ${n}/9: ${STAGES[n - 1].title} (the runbook`),
                "the failed stage runs again",
            );
            // Nothing of a passed stage is updated again; its releases keep their revision.
            const passed = STAGE_UPDATES.filter(([id]) => stageIndex(id) < n - 1).flatMap(([, releases]) => releases);
            const again = w.updatedReleases().slice(updatesBefore).flat();
            for (const release of passed) assert.ok(!again.includes(release), `${release} not updated again`);
            for (const [release, revision] of Object.entries(revisions)) {
                if (passed.includes(release)) assert.equal(w.engine.revision(release), revision, `${release} keeps its revision`);
            }
            assert.ok((await w.progress())?.completedAt, "completed on the rerun");
        });
    }

    test("a receipt lost in the middle of its replacement: the unfinished upgrade's record says where it started", async () => {
        const w = new World();
        w.engine.failUp = (t) =>
            t.some((u) => u.endsWith("::bundle-receipt")) ? 'configmaps "nvcf-upgrade-receipt" already exists' : undefined;
        assert.equal(await w.run(), 1);
        w.kube.api.objects.delete("/api/v1/namespaces/nvcf/configmaps/nvcf-upgrade-receipt");
        w.engine.failUp = undefined;
        assert.equal(await w.run(), 0, w.text());
        assert.match(w.text(), /bundle release 1\.0\.0 installed, 1\.1\.0 selected[\s\S]*Resuming the upgrade to 1\.1\.0 at stage 8/);
    });

    test("a stage stopped by what a killed run left (a stale lock) points at npm run recover, then resumes there", async () => {
        const w = new World();
        w.engine.failUp = (t) =>
            t.some((u) => u.includes("nvca-operator"))
                ? "the stack is currently locked by 1 lock(s). Either wait for the other process(es) to end or delete the lock file with `pulumi cancel`."
                : undefined;
        assert.equal(await w.run(), 1);
        assert.match(
            w.text(),
            /FAILED: stage 2\/9, compute planes:\n {3}error: the stack is currently locked[^\n]*\n {3}This is what a killed run leaves behind[^\n]*: run npm run recover -- --stack dev first\.\n {3}Nothing after this stage was changed\. Once it is fixed, run npm run upgrade -- --stack dev: it resumes at stage 2\/9\./,
        );
        w.engine.failUp = undefined;
        assert.equal(await w.run(), 0, w.text());
    });

    test("a stage's own failure does not mention npm run recover", async () => {
        const w = new World();
        w.engine.failUp = (t) => (t.some((u) => u.includes("nvca-operator")) ? 'configmaps "x" is forbidden' : undefined);
        assert.equal(await w.run(), 1);
        assert.doesNotMatch(w.text(), /npm run recover/);
    });

    test("Ctrl-C: a stage waiting on its checks stops and is recorded as failed; one not started is not started", async () => {
        const w = new World();
        w.faults.natsMessages = 1;
        const ctrlC = new AbortController();
        // Interrupted while the drain gate waits for the stream to drain.
        w.onSleep = () => ctrlC.abort();
        assert.equal(await w.run({ timeoutSeconds: 600 }, settings, ctrlC.signal), 1);
        assert.match(w.text(), /FAILED: stage 3\/9, drain gate:\n {3}interrupted \(Ctrl-C\)/);
        assert.equal((await w.progress())?.stages.drain?.state, "failed");
        const again = new AbortController();
        again.abort();
        w.faults.natsMessages = 0;
        assert.equal(await w.run({}, settings, again.signal), 130);
        assert.match(w.text(), /Interrupted before stage 3\/9, drain gate; run npm run upgrade -- --stack dev again to resume there\./);
    });

    test("preflight: a release left pending-upgrade stops it before anything changes", async () => {
        const w = new World();
        const api = w.engine.resources.find((r) => r.release?.name === "api")!.release!;
        w.engine.record(api, api.from, "pending-upgrade");
        assert.equal(await w.run(), 1);
        assert.match(w.text(), /control plane: releases-deployed: not deployed: nvcf\/api \(revision 2 pending-upgrade\)/);
        assert.match(w.text(), /Fix: helm -n nvcf history api/);
        assert.deepEqual(w.engine.ups, []);
    });
});

describe("npm run upgrade: what it refuses, and --plan", () => {
    test("a downgrade is refused with the runbook's rollback boundary, and nothing is written", async () => {
        const w = new World(B, A);
        w.engine.writeReceipt("1.1.0");
        const older = parseSettings(devRaw({ values: { computePlanes: [PLANE], bundle: { release: "1.0.0" } } }), {
            releaseNames: RELEASE_NAMES,
            bundleReleases: ["1.0.0", "1.1.0"],
        });
        assert.equal(await w.run({}, older), 2);
        assert.match(w.text(), /refused: the stack selects bundle release 1\.0\.0, older than the installed 1\.1\.0/);
        assert.ok(w.text().includes(ROLLBACK_BOUNDARY));
        assert.match(w.text(), /set nvcf-self-managed:bundle\.release to 1\.1\.0/);
        assert.equal(await w.progress(), undefined);
        assert.deepEqual(w.engine.ups, []);
    });

    test("without a receipt the installed release must be given (--from), and must not contradict a receipt", async () => {
        const w = new World();
        await w.kube.request("PUT", "/api/v1/namespaces/nvcf/configmaps/nvcf-upgrade-receipt", {
            metadata: { name: "nvcf-upgrade-receipt" },
            data: {},
        });
        assert.equal(await w.run(), 2);
        assert.match(w.text(), /it has no receipt \(ConfigMap nvcf\/nvcf-upgrade-receipt\).*--from <release> \(known: 1\.0\.0, 1\.1\.0\)/s);
        assert.equal(await w.run({ from: "0.9.9" }), 2);
        assert.match(w.text(), /runs bundle release 0\.9\.9, which this checkout of the program does not know/);
        assert.equal(await w.run({ from: "1.0.0", plan: true }), 0);
        w.engine.writeReceipt("1.0.0");
        assert.equal(await w.run({ from: "1.1.0" }), 2);
        assert.match(w.text(), /the receipt .* says bundle release 1\.0\.0 is installed; --from 1\.1\.0 contradicts it/);
    });

    test("--plan prints each stage with its targeted preview and checks, and changes nothing", async () => {
        const w = new World();
        assert.equal(await w.run({ plan: true }), 0);
        const text = w.text();
        assert.match(text, /Plan of the upgrade from bundle release 1\.0\.0 to 1\.1\.0 \(nothing is changed\)/);
        assert.match(
            text,
            /== stage 2\/9: compute planes[\s\S]*targeted preview \(1 resource\):\n {5}update release nvca-operator 1\.21\.3 -> 1\.22\.0/,
        );
        assert.match(text, /== stage 3\/9: drain gate[\s\S]*runs: the upgrade restarts NATS/);
        assert.match(
            text,
            /== stage 5\/9: dependencies \(01\)[\s\S]*update release (nats 0\.7\.1 -> 0\.7\.2|cassandra 0\.20\.1 -> 0\.20\.2)/,
        );
        assert.match(text, /checks: a whole-stack preview shows no change/);
        assert.deepEqual(w.engine.ups, []);
        assert.equal(
            w.engine.previews.filter((t) => t !== undefined).length,
            STAGE_UPDATES.length,
            "one targeted preview per stage with changes",
        );
        assert.equal(await w.progress(), undefined);
    });

    test("an unfinished upgrade to another release is not mixed with a new one: finish it, or --restart", async () => {
        const w = new World();
        w.faults.natsMessages = 1;
        assert.equal(await w.run(), 1);
        const C = fixtureRelease("1.2.0", { api: "1.26.0" });
        const toC = parseSettings(devRaw({ values: { computePlanes: [PLANE], bundle: { release: "1.2.0" } } }), {
            releaseNames: RELEASE_NAMES,
            bundleReleases: ["1.0.0", "1.1.0", "1.2.0"],
        });
        const run = (options: Partial<UpgradeOptions>) =>
            runUpgrade(
                { stack: "dev", plan: false, restart: false, queues: [], timeoutSeconds: 1, pollSeconds: 1, ...options },
                {
                    engine: w.engine,
                    settings: toC,
                    clusters: { control: { target: statusTargets(toC, [], { planes: new Map() }, C)[0], kube: w.kube }, planes: [] },
                    progress: kubeProgressStore(w.kube),
                    releases: [A, B, C],
                    out: (t) => w.out.push(t),
                    sleep: async () => undefined,
                },
            );
        w.out.length = 0;
        assert.equal(await run({}), 2);
        assert.match(
            w.text(),
            /an upgrade from 1\.0\.0 to 1\.1\.0 is in progress \(stage 3, drain gate, failed at .*\).*Select 1\.1\.0 again.*or pass --restart/s,
        );
        w.out.length = 0;
        await run({ restart: true, plan: true });
        assert.match(w.text(), /Plan of the upgrade from bundle release 1\.0\.0 to 1\.2\.0/);
    });

    test("OpenBao alone, once, the baseline captured once; no JWT plugin mode is switched (no chart of the bundle reads one)", async () => {
        const w = new World();
        w.faults.sealedMember = true;
        assert.equal(await w.run({}, settings), 1);
        assert.deepEqual((await w.progress())?.openbaoBaseline, { clusterId: "cid-1" });
        w.faults.sealedMember = false;
        assert.equal(await w.run({}, settings), 0, w.text());
        assert.match(w.text(), /baseline kept from the first attempt: cluster ID cid-1/);
        assert.doesNotMatch(w.text(), /jwtPluginLifecycle\.mode: (bridge|versioned)/);
        assert.equal(w.engine.revision("openbao-server"), 2, "OpenBao updated once");
    });

    test("nothing to do: the receipt names the selected release and the preview shows no change", async () => {
        const w = new World(B, B);
        assert.equal(await w.run(), 0);
        assert.match(w.text(), /Nothing to upgrade: the environment runs bundle release 1\.1\.0, and the preview shows no change/);
        assert.equal(await w.progress(), undefined);
    });
});
