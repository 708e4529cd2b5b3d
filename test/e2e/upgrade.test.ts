/**
 * The staged upgrade, end to end: the `pulumi` CLI installs bundle release A (the pinned
 * 0.8.0) in a copy of the repository; a fixture bundle release B (one more file in
 * components/bundle/releases/, with bumped fixture chart versions, as a user's newer checkout
 * and chart mirror would have) is then rolled out with `npm run upgrade`, which drives the same
 * stack through Pulumi's Automation API. The real StatefulSet controller (kube-controller-manager)
 * makes OpenBao's member pods, behind which run three real `bao server` 2.5.5 processes in one Raft
 * cluster (test/e2e/openbao-pods.ts); NATS is a real nats-server 2.11.17 with JetStream. The test
 * plays the other controllers and the kubelet, and the pods' network: the API server's pod proxy
 * reaches this machine's address, which carries each pod's port to its process. NVCA's CRDs,
 * Gateway API's and Kyverno's are the real ones (test/e2e/upstream-crds.ts).
 *
 * Tools: scripts/e2e/build-tools.sh. Run: npm run test:e2e (or NVCF_E2E=1 node --import tsx --test test/e2e/upgrade.test.ts).
 */
import * as assert from "node:assert/strict";
import { spawn } from "node:child_process";
import * as crypto from "node:crypto";
import * as fs from "node:fs";
import type * as http from "node:http";
import * as os from "node:os";
import * as path from "node:path";
import * as zlib from "node:zlib";
import { after, before, describe, it } from "node:test";
import { parse as parseYaml, stringify as toYaml } from "yaml";
import { FakeControlPlane } from "../support/fake-icms";
import { e2eSkip, findTools, Kube, LocalCluster, podAddress, whileLooping } from "./cluster";
import { freezeRun, HelmRecordWebhook, killAll, RUN_MARKER, survivorsAfter, type RecordWrite } from "./kill-points";
import { OpenBaoPods, RUNBOOK_EVENTS } from "./openbao-pods";
import { podNetwork } from "./pod-network";
import { NatsServer, type NatsClient } from "./real-nats";
import { chartsWithUpstreamCrds, gatewayApiInstallFile, installCrds, upstreamCrds } from "./upstream-crds";
import { PulumiCli, userCheckout } from "./pulumi-cli";
import { e2eStackConfig, FIXTURE_VERSION, GATEWAY_NS, GPU, gpuPlane } from "./stack-config";
import { AGENT_STATUS } from "../../lib/contracts/nvca";
import { JSZ_STORAGE, NATS } from "../../lib/nats/contract";
import { isSecretAt } from "../../scripts/lib/secret-envelope";

const REPO = path.resolve(__dirname, "..", "..");
const STACK = "e2e";
const MIN = 60_000;
/** Bundle release B: the pinned release's versions with these charts bumped (their fixture charts too). */
const B = "0.8.1-e2e";
const BUMPS: Record<string, { chart: string; from: string; to: string }> = {
    "nvca-operator": { chart: "helm-nvca-operator", from: "1.21.3", to: "1.21.4" },
    "openbao-server": { chart: "helm-nvcf-openbao-server", from: "0.30.25", to: "0.30.26" },
    nats: { chart: "helm-nvcf-nats", from: "0.7.1", to: "0.7.2" },
    cassandra: { chart: "helm-nvcf-cassandra", from: "0.20.1", to: "0.20.2" },
    api: { chart: "helm-nvcf-api", from: "1.25.1", to: "1.25.2" },
    "state-metrics": { chart: "helm-nvcf-state-metrics", from: "1.0.2", to: "1.0.3" },
};

const OPENBAO_NS = "vault-system";
const MEMBERS = ["openbao-server-0", "openbao-server-1", "openbao-server-2"];

const { tools, missing } = findTools();
const skip = e2eSkip(
    { tools, missing },
    "the upgrade suite plays the pods' IPs on a local API server; it does not run against E2E_KUBECONFIG",
);

function noPodAddress(): never {
    throw new Error("the upgrade suite needs a non-loopback IPv4 address on this machine (the pod proxy refuses loopback)");
}

/** The e2e stack: one cluster for the control plane and a GPU plane, charts from the test's mirror directory. */
function stackConfig(charts: string, icmsUrl: string, gatewayCrds: string, rootToken: string) {
    return e2eStackConfig({
        cluster: { clusterIdentifier: "e2e", skipAwait: true },
        charts,
        controlPlane: {
            observability: { profile: "control", chartsPath: charts },
            certManager: { enabled: true, deleteNamespaceOnDestroy: true },
            ingress: {
                gatewayApi: {
                    install: {
                        enabled: true,
                        crdsManifest: gatewayCrds,
                        envoyGateway: { version: FIXTURE_VERSION },
                    },
                },
            },
        },
        other: {
            computePlanes: [gpuPlane(icmsUrl, charts)],
            // The fixture chart's OnDelete StatefulSet of three members, and the root-token Secret its hook would write.
            releases: { "openbao-server": { values: { e2eStatefulSet: true, e2eRootToken: rootToken } } },
            openbaoRollout: { memberTimeoutSeconds: 60, pollSeconds: 1 },
            // The smoke check has its cases in e2e.test.ts, which plays the kubelet of the charts' test Pods.
            checks: { healthGate: { timeoutSeconds: 60, pollSeconds: 1 }, smoke: { helmTests: false } },
        },
    });
}

/** A Helm release record: its name, revision, chart version and when it was last deployed. */
interface Record_ {
    name: string;
    revision: number;
    version: string;
    lastDeployed: string;
}

function decode(secret: any): Record_ {
    const rel = JSON.parse(
        zlib.gunzipSync(Buffer.from(Buffer.from(secret.data.release, "base64").toString("utf8"), "base64")).toString("utf8"),
    );
    return { name: rel.name, revision: rel.version, version: rel.chart.metadata.version, lastDeployed: rel.info.last_deployed };
}

describe("end-to-end: npm run upgrade from bundle release A to B", { skip }, () => {
    let cluster: LocalCluster;
    let kube: Kube;
    let work = "";
    let project = "";
    let charts = "";
    let cli: PulumiCli;
    let env: NodeJS.ProcessEnv = {};
    const icms = new FakeControlPlane();
    const transcript: string[] = [];
    /** What the test's controllers report: whether the gateway accepts the routes. */
    const world = { routesAccepted: true };
    /** NATS as the bundle's chart runs it, with the account NVCF's services use; its monitoring port behind pod nats-0. */
    let nats: NatsServer;
    let app: NatsClient | undefined;
    let natsNetwork: http.Server | undefined;
    const natsRequests: string[] = [];
    /** OpenBao's three members, led by openbao-server-0, behind the StatefulSet's pods. */
    let pods: OpenBaoPods;
    /** Sees each Helm record write before the API server stores it: the trigger that kills an upgrade inside a stage. */
    let webhook: HelmRecordWebhook;

    before(async () => {
        work = fs.mkdtempSync(path.join(os.tmpdir(), "nvcf-e2e-upgrade-"));
        cluster = new LocalCluster(tools!);
        await cluster.boot();
        cluster.startControllerManager(tools!.kubeControllerManager, ["statefulset-controller"]);
        kube = new Kube(cluster.kubeconfig);
        await icms.start();
        const address = podAddress ?? noPodAddress();
        nats = new NatsServer(tools!.natsServer, fs.mkdtempSync(path.join(work, "nats-")), ["APP"], 14222, 18222);
        await nats.start();
        natsNetwork = await podNetwork(
            address,
            NATS.monitorPort,
            (pod) => (pod === "nats-0" ? `http://127.0.0.1:${nats.monitorPort}` : undefined),
            (r) => natsRequests.push(r.url),
        );
        pods = new OpenBaoPods(tools!, work, kube, OPENBAO_NS, address);
        await pods.start();
        webhook = new HelmRecordWebhook(kube, cluster.dir);
        await webhook.start();

        // The chart mirror: a copy of the fixture charts (Kyverno's with its real CRD), which the test moves to B's versions later.
        charts = chartsWithUpstreamCrds(tools!.crds, work);
        ({ project, env, cli } = await userCheckout({
            repo: REPO,
            work,
            tools: tools!,
            kubeconfig: cluster.kubeconfig,
            stack: STACK,
            config: stackConfig(charts, icms.icmsUrl, gatewayApiInstallFile(tools!.crds, work), pods.bao.rootToken),
            secrets: { ngcApiKey: "e2e-ngc-key", cassandraPassword: "e2e-cassandra-password-0123456789", kubeconfig: cluster.kubeconfig },
        }));
    });

    after(async () => {
        if (process.env.E2E_LOG) fs.writeFileSync(process.env.E2E_LOG, [...cli.log, ...transcript].join("\n\n"));
        await webhook?.stop().catch(() => undefined);
        await icms.stop().catch(() => undefined);
        app?.close();
        await new Promise((r) => (natsNetwork ? natsNetwork.close(r) : r(undefined)));
        await Promise.allSettled([nats?.stop(), pods?.stop()]);
        await cluster?.stop();
        if (process.env.E2E_KEEP !== "1") {
            cluster?.removeDir();
            fs.rmSync(work, { recursive: true, force: true });
        } else console.log(`# e2e kept: ${work} ${cluster.dir}`);
    });

    /**
     * Creates the object at `collection`/name unless it exists, then sets its status unless `done`
     * says it already has what the test wants (a Job's status, for one, may be set only once).
     */
    async function ensure(
        collection: string,
        body: any,
        status?: Record<string, unknown>,
        done?: (obj: any) => boolean,
        subresource = true,
    ): Promise<void> {
        const ns = /\/namespaces\/([^/]+)\//.exec(collection)?.[1];
        if (ns && !(await kube.get(`/api/v1/namespaces/${ns}`))) return;
        const at = `${collection}/${body.metadata.name}`;
        let obj = await kube.get<any>(at);
        if (!obj) {
            const res = await kube.request("POST", collection, { ...body, ...(status && !subresource ? { status } : {}) });
            // A kind whose CRD the run has just applied is not served for a moment: a controller waits for it.
            if (res.status === 404 && /404 page not found/.test(res.text)) return;
            if (res.status !== 201 && res.status !== 409) throw new Error(`POST ${collection}: ${res.status} ${res.text.slice(0, 200)}`);
            obj = await kube.get<any>(at);
        }
        if (!status || done?.(obj)) return;
        const res = await kube.request("PUT", subresource ? `${at}/status` : at, { ...obj, status: { ...obj.status, ...status } });
        if (res.status !== 200) throw new Error(`PUT ${at}: ${res.status} ${res.text.slice(0, 200)}`);
    }

    /**
     * What the controllers, the kubelet and NVCA would report while `f` runs: the account
     * bootstrap Job done, the route Accepted (or not, as the test says), OpenBao's member pods
     * Running and Ready (a replaced one is a fresh, sealed OpenBao process), the NATS pod, a
     * healthy NVCFBackend and its agent. Pods get this machine's address, with the ports the
     * in-process servers listen on.
     */
    async function withControllers<T>(f: () => Promise<T>): Promise<T> {
        const errors: string[] = [];
        const now = new Date().toISOString().replace(/\.\d+Z$/, "Z");
        const ip = podAddress ?? noPodAddress();
        const ready = {
            phase: "Running",
            podIP: ip,
            podIPs: [{ ip }],
            conditions: [{ type: "Ready", status: "True", lastTransitionTime: now }],
        };
        const hasIp = (p: any) => !!p.status?.podIP;
        const pod = (name: string, container: string, port?: { name: string; port: number }) => ({
            metadata: { name, labels: { app: container } },
            spec: {
                containers: [
                    { name: container, image: container, ...(port ? { ports: [{ name: port.name, containerPort: port.port }] } : {}) },
                ],
            },
        });
        const bootstrap = {
            metadata: { name: "nvcf-api-account-bootstrap" },
            spec: {
                suspend: true,
                template: { spec: { restartPolicy: "OnFailure", containers: [{ name: "bootstrap", image: "bootstrap" }] } },
            },
        };
        const bootstrapDone = {
            succeeded: 1,
            startTime: now,
            completionTime: now,
            conditions: ["SuccessCriteriaMet", "Complete"].map((type) => ({ type, status: "True", lastTransitionTime: now })),
        };
        const route = {
            apiVersion: "gateway.networking.k8s.io/v1",
            kind: "HTTPRoute",
            metadata: { name: "api" },
            spec: { parentRefs: [{ name: "nvcf-gateway" }] },
        };
        const routeStatus = (accepted: boolean) => ({
            parents: [
                {
                    parentRef: { name: "nvcf-gateway" },
                    controllerName: "gateway.envoyproxy.io/gatewayclass-controller",
                    conditions: [
                        {
                            type: "Accepted",
                            status: accepted ? "True" : "False",
                            reason: accepted ? "Accepted" : "NotAllowedByListeners",
                            lastTransitionTime: now,
                            message: "",
                        },
                    ],
                },
            ],
        });
        // The operator creates it from the cluster DTO (the program reads no spec); its status goes through /status.
        const backend = { apiVersion: "nvcf.nvidia.io/v1", kind: "NVCFBackend", metadata: { name: GPU }, spec: {} };
        const steps: [string, () => Promise<void>][] = [
            ["bootstrap", () => ensure("/apis/batch/v1/namespaces/nvcf/jobs", bootstrap, bootstrapDone, (j) => j.status?.succeeded === 1)],
            [
                "route",
                async () => {
                    if (!(await kube.get("/apis/apiextensions.k8s.io/v1/customresourcedefinitions/httproutes.gateway.networking.k8s.io")))
                        return;
                    const want = world.routesAccepted ? "True" : "False";
                    await ensure(
                        `/apis/gateway.networking.k8s.io/v1/namespaces/${GATEWAY_NS}/httproutes`,
                        route,
                        routeStatus(world.routesAccepted),
                        (r) => r.status?.parents?.[0]?.conditions?.[0]?.status === want,
                    );
                },
            ],
            [
                "nats",
                () =>
                    ensure(
                        "/api/v1/namespaces/nats-system/pods",
                        pod("nats-0", NATS.container, { name: NATS.monitorPortName, port: NATS.monitorPort }),
                        ready,
                        hasIp,
                    ),
            ],
            [
                "backend",
                async () => {
                    if (!(await kube.get("/api/v1/namespaces/nvca-operator"))) return;
                    await ensure(
                        "/apis/nvcf.nvidia.io/v1/namespaces/nvca-operator/nvcfbackends",
                        backend,
                        { agentStatus: AGENT_STATUS.healthy },
                        (b) => b.status?.agentStatus === AGENT_STATUS.healthy,
                    );
                },
            ],
            ["agent", () => ensure("/api/v1/namespaces/nvca-system/pods", pod("nvca-0", "nvca"), ready, hasIp)],
            [
                "modelcache",
                async () => {
                    if (
                        (await kube.get("/api/v1/namespaces/nvca-system")) &&
                        !(await kube.get("/api/v1/namespaces/nvca-modelcache-init"))
                    ) {
                        await kube.request("POST", "/api/v1/namespaces", { metadata: { name: "nvca-modelcache-init" } });
                    }
                },
            ],
        ];
        try {
            return await whileLooping(async () => {
                for (const [what, step] of steps) await step().catch((e) => errors.push(`${what}: ${e}`));
            }, f);
        } finally {
            assert.deepEqual([...new Set(errors)], [], "the test's controllers did their part");
        }
    }

    /**
     * `npm run <script> -- --stack e2e <args>` in the user's checkout, its transcript kept;
     * `killWhen` kills its whole process group once the output matches.
     */
    function npmScript(
        script: string,
        args: string[],
        killWhen?: RegExp,
        moreEnv: NodeJS.ProcessEnv = {},
    ): Promise<{ code: number | null; signal: NodeJS.Signals | null; out: string }> {
        return new Promise((resolve) => {
            const child = spawn("npm", ["run", "--silent", script, "--", "--stack", STACK, ...args], {
                cwd: project,
                env: { ...env, ...moreEnv },
                detached: true,
                stdio: ["ignore", "pipe", "pipe"],
            });
            let out = "";
            const take = (c: Buffer) => {
                out += c.toString("utf8");
                if (killWhen && killWhen.test(out)) {
                    killWhen = undefined;
                    process.kill(-child.pid!, "SIGKILL");
                }
            };
            child.stdout.on("data", take);
            child.stderr.on("data", take);
            child.on("close", (code, signal) => {
                transcript.push(`$ npm run ${script} -- --stack ${STACK} ${args.join(" ")}\n${out}(exit ${code ?? signal})`);
                resolve({ code, signal, out });
            });
        });
    }

    const upgrade = (args: string[], killWhen?: RegExp, moreEnv: NodeJS.ProcessEnv = {}) => npmScript("upgrade", args, killWhen, moreEnv);

    /**
     * `npm run upgrade` killed inside a stage's update, at a Helm record write (a trigger, not a
     * timer): every process of the run (npm, the command, the pulumi CLI it drives, the language
     * host, the kubernetes provider that runs Helm) is frozen before the write is stored, then
     * killed once it is, so Helm's record says the operation began and nothing else does.
     */
    async function upgradeKilledAt(
        args: string[],
        match: (w: RecordWrite) => boolean,
    ): Promise<{ code: number | null; signal: NodeJS.Signals | null; out: string; write: RecordWrite }> {
        const marker = crypto.randomUUID();
        let frozen: number[] = [];
        const hit = new Promise<RecordWrite>((resolve) => {
            webhook.onWrite = (w) => {
                if (!match(w)) return;
                webhook.onWrite = undefined;
                frozen = freezeRun(marker);
                resolve(w);
            };
        });
        const run = upgrade(args, undefined, { [RUN_MARKER]: marker });
        try {
            const write = await Promise.race([
                hit,
                run.then((r) => {
                    throw new Error(`npm run upgrade ended (exit ${r.code ?? r.signal}) before the kill point:\n${r.out.slice(-3000)}`);
                }),
            ]);
            for (let i = 0; ; i++) {
                const list = await kube.get<any>(
                    `/api/v1/namespaces/${write.namespace}/secrets?labelSelector=${encodeURIComponent(`owner=helm,name=${write.release}`)}`,
                );
                if ((list?.items ?? []).some((x: any) => x.metadata.labels.status === write.status)) break;
                if (i === 200) throw new Error(`the ${write.status} record of ${write.release} was never stored`);
                await new Promise((r) => setTimeout(r, 50));
            }
            killAll(frozen);
            const result = await run;
            assert.deepEqual(await survivorsAfter(marker, 10_000), [], "every process of the upgrade is gone");
            return { ...result, write };
        } finally {
            webhook.onWrite = undefined;
            killAll(frozen);
        }
    }

    /** `npm run recover`, as the upgrade's message and the README give it. */
    const recoverStack = () => npmScript("recover", []);

    async function records(): Promise<Map<string, Record_>> {
        const list = await kube.get<any>("/api/v1/secrets?labelSelector=owner%3Dhelm");
        const newest = new Map<string, Record_>();
        for (const s of list?.items ?? []) {
            const r = decode(s);
            if ((newest.get(r.name)?.revision ?? 0) < r.revision) newest.set(r.name, r);
        }
        return newest;
    }

    const receipt = async () => (await kube.get<any>("/api/v1/namespaces/nvcf/configmaps/nvcf-upgrade-receipt"))?.data;
    const progress = async () =>
        JSON.parse((await kube.get<any>("/api/v1/namespaces/nvcf/configmaps/nvcf-upgrade-progress"))?.data.progress ?? "null");

    it("installs bundle release A with pulumi up, and writes its receipt", { timeout: 15 * MIN }, async () => {
        // The GPU operator's ClusterPolicy CRD, which preflight asks for by name (no source the suite builds from): any schema.
        await installCrds(kube, [
            {
                apiVersion: "apiextensions.k8s.io/v1",
                kind: "CustomResourceDefinition",
                metadata: { name: "clusterpolicies.nvidia.com" },
                spec: {
                    group: "nvidia.com",
                    scope: "Cluster",
                    names: { plural: "clusterpolicies", kind: "ClusterPolicy" },
                    versions: [
                        {
                            name: "v1",
                            served: true,
                            storage: true,
                            schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } },
                        },
                    ],
                },
            },
            // NVCA's own.
            ...upstreamCrds(tools!.crds, "nvca"),
        ]);
        await kube.request("POST", "/apis/storage.k8s.io/v1/storageclasses", {
            metadata: { name: "standard", annotations: { "storageclass.kubernetes.io/is-default-class": "true" } },
            provisioner: "example.com/none",
        });
        await new Promise((r) => setTimeout(r, 2000));
        await withControllers(() => cli.run(["up", "--yes", "--skip-preview"]));
        const data = await receipt();
        assert.equal(data.bundleRelease, "0.8.0");
        assert.equal(JSON.parse(data.controlPlane).nats, "0.7.1");
        assert.equal(JSON.parse(data.computePlanes)[GPU]["nvca-operator"], "1.21.3");
        // What the next preview compares with, on the cluster: the stack's own state is never read.
        const stateful = JSON.parse(data.statefulReleases) as Record<string, { version: string; values: string }>;
        assert.deepEqual(Object.keys(stateful).sort(), ["cassandra", "nats", "openbao-server"]);
        assert.equal(stateful.nats.version, "0.7.1");
        for (const s of Object.values(stateful)) assert.match(s.values, /^[0-9a-f]{64}$/);
        // The digests' key is a secret in the stack's state (exported state shows its envelope, not the key).
        const state = JSON.parse((await cli.run(["stack", "export"])).stdout) as { deployment: { resources: any[] } };
        const key = state.deployment.resources.find((r) => String(r.urn).endsWith("::bundle-receipt-key"));
        assert.ok(key, "the bundle-receipt-key resource is in the state");
        assert.ok(isSecretAt(key.outputs, ["key"]), `the key is kept as a secret: ${JSON.stringify(Object.keys(key.outputs))}`);
        const preview = await cli.run(["preview", "--expect-no-changes"]);
        assert.doesNotMatch(preview.stdout + preview.stderr, /this update changes/, "no warning when nothing changes");
    });

    it(
        "with bundle release B in the checkout and its charts mirrored, a plain preview warns that it would restart NATS, OpenBao and Cassandra",
        { timeout: 5 * MIN },
        async () => {
            const pinned = JSON.parse(fs.readFileSync(path.join(project, "components/bundle/releases/0.8.0.json"), "utf8"));
            pinned.release = B;
            pinned.source = "the end-to-end suite's fixture release B";
            for (const [name, bump] of Object.entries(BUMPS)) {
                const where = name === "nvca-operator" ? pinned.computePlane.charts : pinned.controlPlane.charts;
                assert.equal(where[name], bump.from);
                where[name] = bump.to;
                const chartFile = path.join(charts, bump.chart, "Chart.yaml");
                fs.writeFileSync(chartFile, fs.readFileSync(chartFile, "utf8").replace(`version: ${bump.from}`, `version: ${bump.to}`));
            }
            fs.writeFileSync(path.join(project, `components/bundle/releases/${B}.json`), JSON.stringify(pinned, null, 4));
            const res = await cli.run(["preview"]);
            const out = res.stdout + res.stderr;
            for (const [release, bump] of [
                ["nats", BUMPS.nats],
                ["openbao-server", BUMPS["openbao-server"]],
                ["cassandra", BUMPS.cassandra],
            ] as const) {
                assert.match(
                    out,
                    new RegExp(`this update changes ${release} \\(chart ${bump.from} -> ${bump.to}\\) on an installed environment`),
                );
            }
            assert.match(out, /Apply it with npm run upgrade -- --stack e2e/);
        },
    );

    it("--plan prints every stage with its targeted preview and checks, and changes nothing", { timeout: 10 * MIN }, async () => {
        const before = await records();
        const { code, out } = await upgrade(["--plan"]);
        assert.equal(code, 0, out);
        assert.match(out, /Plan of the upgrade from bundle release 0\.8\.0 to 0\.8\.1-e2e/);
        assert.match(out, /== stage 2\/9: compute planes[^\n]*\n[\s\S]*?update release nvca-operator 1\.21\.3 -> 1\.21\.4/);
        assert.match(out, /== stage 4\/9: OpenBao[\s\S]*?update release openbao-server 0\.30\.25 -> 0\.30\.26/);
        assert.match(out, /== stage 6\/9: core services \(02\)[\s\S]*?update release api 1\.25\.1 -> 1\.25\.2/);
        assert.deepEqual(await records(), before, "no release changed");
        assert.equal(await kube.get("/api/v1/namespaces/nvcf/configmaps/nvcf-upgrade-progress"), undefined);
    });

    it("stops at the drain gate while a NATS memory stream holds messages, after the compute planes", { timeout: 15 * MIN }, async () => {
        // A stream as NVCF's services make theirs: in memory, one replica; two requests no worker took yet.
        app = await nats.connect("APP");
        await app.createStream("requests", "requests.>", JSZ_STORAGE.memory);
        await app.publish("requests.gpu-e2e", 2);
        const { code, out } = await withControllers(() => upgrade(["--timeout", "3"]));
        assert.equal(code, 1, out);
        assert.match(out, /FAILED: stage 3\/9, drain gate/);
        assert.match(out, /nats-drained: not drained: APP\/requests on nats-0: 2 messages/);
        assert.match(out, /run npm run upgrade -- --stack e2e: it resumes at stage 3\/9/);
        const helm = await records();
        assert.equal(helm.get("nvca-operator")!.version, "1.21.4", "the compute plane went first");
        assert.equal(helm.get("nats")!.version, "0.7.1", "NATS untouched");
        assert.ok(
            natsRequests.some((u) => u === "/jsz?accounts=true&streams=true&config=true&offset=0&limit=1024"),
            natsRequests.join(", "),
        );
    });

    it(
        "resumes after the drain; killed inside the dependencies' update, recover rolls NATS back; killed while it waits on the core services, a rerun resumes there and finishes",
        { timeout: 25 * MIN },
        async () => {
            await app!.request("$JS.API.STREAM.PURGE.requests", undefined);
            world.routesAccepted = false;
            // Killed as Helm begins NATS's upgrade in stage 5: its new revision is stored pending-upgrade, and nothing more happens.
            const inStage = await withControllers(() =>
                upgradeKilledAt(
                    ["--timeout", "300"],
                    (w) => w.release === "nats" && w.operation === "CREATE" && w.status === "pending-upgrade",
                ),
            );
            assert.notEqual(inStage.code, 0, inStage.out);
            assert.match(inStage.out, /== stage 2\/9: compute planes: passed at [^;]+; not repeated\./);
            assert.match(inStage.out, /== stage 5\/9: dependencies \(01\)/);
            assert.equal((await progress()).stages.dependencies.state, "running");
            // Stage 4 rolled the members to B's template in the runbook's order: standbys, then the leader after a step-down.
            assert.deepEqual(pods.events, RUNBOOK_EVENTS);
            assert.notEqual(
                pods.leaderAtRestart.get("openbao-server-0"),
                "openbao-server-0",
                "openbao-server-0 led no more when its pod went",
            );
            // One update of OpenBao: no JWT plugin mode is switched (no chart of the pinned bundle reads one).
            assert.match(inStage.out, /== stage 4\/9: OpenBao[\s\S]*? {3}passed\./);
            assert.doesNotMatch(inStage.out, /jwtPluginLifecycle\.mode: (bridge|versioned)/);
            assert.match(
                inStage.out,
                /openbao-server rollout: replacing openbao-server-2 \(a standby\)/,
                "the rollout's lines reach the user",
            );

            // The rerun before recover meets what the kill left, and says so.
            const blocked = await withControllers(() => upgrade(["--timeout", "300"]));
            assert.equal(blocked.code, 1, blocked.out);
            assert.match(blocked.out, /This is what a killed run leaves behind[^\n]*run npm run recover -- --stack e2e first\./);

            const recovered = await recoverStack();
            assert.equal(recovered.code, 0, recovered.out);
            assert.match(recovered.out, /Helm release nats-system\/nats \(\S+\): found revision 2 is stuck pending-upgrade/);
            assert.match(
                recovered.out,
                /- Helm release nats-system\/nats \(\S+\): rolled it back to revision 1, cleared the pending operation, read it again/,
            );
            const rolledBack = new Set(
                [...recovered.out.matchAll(/- Helm release [^/\s]+\/(\S+) \(\S+\): rolled it back/g)].map((m) => m[1]),
            );

            const killed = await withControllers(() => upgrade(["--timeout", "300"], /== stage 6\/9: core services[\s\S]*waiting \(/));
            assert.equal(killed.signal ?? killed.code, "SIGKILL", killed.out);
            assert.match(killed.out, /== stage 4\/9: OpenBao: passed at [^;]+; not repeated\./);
            // The blocked rerun recorded the stage as failed; this run does it again from its start.
            assert.match(
                killed.out,
                /== stage 5\/9: dependencies \(01\)[^\n]*\n[^\n]*\n {3}\(failed at [^;]+; done again from its start\)/,
            );
            assert.equal((await records()).get("nats")!.version, BUMPS.nats.to, "the resumed stage upgraded NATS");
            const record = await progress();
            assert.equal(record.stages["compute-planes"].state, "passed");
            assert.equal(record.stages.core.state, "running");
            assert.ok(
                pods.requests.some((r) => r.pod === "openbao-server-1" && r.path === "sys/health"),
                "OpenBao's members were checked",
            );
            // The stack sets no openbao.jwtPluginLifecycle.mode, and the upgrade switches none (no chart reads one): no JWT mount check.
            assert.ok(!pods.requests.some((r) => r.path === "sys/mounts"), "the upgrade turned on no JWT mount check by itself");
            const sts = await kube.get<any>(`/apis/apps/v1/namespaces/${OPENBAO_NS}/statefulsets/openbao-server`);
            for (const m of MEMBERS) {
                const p = await kube.get<any>(`/api/v1/namespaces/${OPENBAO_NS}/pods/${m}`);
                assert.equal(p.metadata.labels["controller-revision-hash"], sts.status.updateRevision, `${m} on the new template`);
            }

            world.routesAccepted = true;
            const { code, out } = await withControllers(() => upgrade([]));
            assert.equal(code, 0, out);
            for (const [n, title] of [
                [2, "compute planes"],
                [3, "drain gate"],
                [4, "OpenBao"],
                [5, "dependencies \\(01\\)"],
            ] as const) {
                assert.match(out, new RegExp(`== stage ${n}/9: ${title}: passed at [^;]+; not repeated\\.`));
            }
            assert.match(out, /== stage 6\/9: core services \(02\)[^\n]*\n[^\n]*\n {3}\(interrupted at/);
            assert.match(out, /ok {3}control plane: routes: 1 HTTPRoute is Accepted/);
            assert.match(out, /the preview shows no change/);

            // Each bumped release went to B once (a release recover rolled back: once more after its rollback, revisions 3 and 4),
            // in the runbook's order: compute plane, OpenBao, dependencies, core, observability;
            // OpenBao once too: no JWT plugin mode is switched.
            const helm = await records();
            for (const [name, bump] of Object.entries(BUMPS)) {
                assert.equal(helm.get(name)!.version, bump.to, name);
                assert.equal(helm.get(name)!.revision, rolledBack.has(name) ? 4 : 2, `${name} upgraded once`);
            }
            const at = (name: string) => Date.parse(helm.get(name)!.lastDeployed);
            assert.ok(at("nvca-operator") < at("openbao-server"), "compute plane before OpenBao");
            assert.ok(at("openbao-server") < Math.min(at("nats"), at("cassandra")), "OpenBao before the other dependencies");
            assert.ok(Math.max(at("nats"), at("cassandra")) < at("api"), "dependencies before the core services");
            assert.ok(at("api") < at("state-metrics"), "core services before observability");
            assert.equal(helm.get("sis")!.revision, 1, "an unchanged release is not upgraded");

            const data = await receipt();
            assert.equal(data.bundleRelease, B);
            assert.equal(JSON.parse(data.controlPlane).api, "1.25.2");
            assert.equal(JSON.parse(data.computePlanes)[GPU]["nvca-operator"], "1.21.4");
            assert.ok((await progress()).completedAt);
            await cli.run(["preview", "--expect-no-changes"]);
            const again = await upgrade([]);
            assert.equal(again.code, 0, again.out);
            assert.match(again.out, /Nothing to upgrade: the environment runs bundle release 0\.8\.1-e2e/);
        },
    );

    it("refuses to go back to A, with the runbook's rollback boundary", { timeout: 5 * MIN }, async () => {
        const file = path.join(project, `Pulumi.${STACK}.yaml`);
        const doc = parseYaml(fs.readFileSync(file, "utf8"));
        doc.config["nvcf-self-managed:bundle"] = { release: "0.8.0" };
        fs.writeFileSync(file, toYaml(doc));
        const { code, out } = await upgrade([]);
        assert.equal(code, 2, out);
        assert.match(out, /refused: the stack selects bundle release 0\.8\.0, older than the installed 0\.8\.1-e2e/);
        assert.match(out, /never apply an old bundle unchanged/);
        assert.equal((await receipt()).bundleRelease, B);
    });
});
