/**
 * The real end-to-end run, on the user's path: the `pulumi` CLI in a copy of the repository, on
 * its Pulumi.yaml and a stack file, set up with `pulumi config set` as the README says; the CLI
 * runs index.ts through the Node.js language host, with the real pulumi-resource-kubernetes
 * provider and Helm inside it, against a real kube-apiserver on etcd (or any cluster given by
 * E2E_KUBECONFIG). OpenBao is a real `bao server` 2.5.5 with NVIDIA's JWT plugin, set up as the
 * chart's scripts do (test/e2e/real-openbao.ts), reached at the address the stack names; NVCA's,
 * Gateway API's and Kyverno's CRDs are the real ones (test/e2e/upstream-crds.ts). Faked: ICMS/API
 * Keys (test/support/fake-icms.ts) and NVIDIA's charts (test/e2e/charts/, one fixture per chart,
 * recording the values each release received).
 *
 * Tools: scripts/e2e/build-tools.sh. Run: npm run test:e2e.
 */
import * as assert from "node:assert/strict";
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as zlib from "node:zlib";
import { after, before, describe, it } from "node:test";
import { stringify as toYaml, parse as parseYaml } from "yaml";
import { addonDependencies, ADDONS } from "../../components/catalog/compute-plane-addons";
import { CATALOG, REGISTRATION_NEEDS } from "../../components/catalog/control-plane";
import { releaseDependencies } from "../../components/control-plane/ordering";
import { FakeControlPlane } from "../support/fake-icms";
import { HookKubelet } from "./hook-kubelet";
import { BaoCluster, openbaoChartConfig } from "./real-openbao";
import { migration10, NVCF_API_JWT_MOUNT } from "./openbao-migrations";
import { ADMIN_ISSUER_GRANT_PATHS } from "../../lib/openbao/contract";
import { HELM_FIELD_MANAGER } from "../../lib/contracts/helm";
import { finalizingNamespaces, e2eSkip, findTools, Kube, LocalCluster, whileLooping } from "./cluster";
import { PulumiCli, userCheckout, type TimedEvent } from "./pulumi-cli";
import type { TreeUsage } from "./process-tree";
import { CONTROLLER_NS, e2eStackConfig, FIXTURE_VERSION, GATEWAY_NS, GPU, gpuPlane } from "./stack-config";
import { chartsWithUpstreamCrds, gatewayApiInstallFile, installCrds, upstreamCrds } from "./upstream-crds";
import { AGENT_STATUS, type AgentStatus } from "../../lib/contracts/nvca";
import { KUBERNETES_PROVIDER_VERSION } from "../../lib/contracts/pulumi-state";

const REPO = path.resolve(__dirname, "..", "..");
const STACK = "e2e";
const NGC_KEY = "e2e-ngc-key";
const CASSANDRA_PASSWORD = "e2e-cassandra-password-0123456789";
const PULL_SECRET = "nvcr-pull-secret";
/** Every namespace the stack owns with this config (control plane + one compute plane with every add-on), each with the pull secret. */
const STACK_NAMESPACES = [
    "monitoring",
    "nats-system",
    "cert-manager",
    "vault-system",
    "cassandra-system",
    "api-keys",
    "sis",
    "nvcf",
    "ess",
    CONTROLLER_NS,
    GATEWAY_NS,
    "nvca-operator",
    "nvca-system",
    "nvcf-backend",
    "kai-scheduler",
    "grove-system",
    "dynamo-system",
];
/** The compute-plane bundle's add-ons, all on for the GPU plane. */
const ADDON_SWITCHES = {
    kaiScheduler: { enabled: true },
    groveOperator: { enabled: true },
    dynamoOperator: { enabled: true },
    topologyAwareScheduling: { enabled: true },
};
const ADDON_RELEASES = ADDONS.map((a) => a.name);
const MIN = 60_000;
/** The platform smoke check's function image: on nvcr.io, for which the suite's API holds the account's credential. */
const SMOKE_IMAGE = "nvcr.io/e2e/echo:1.0";

const { tools, missing } = findTools();
const realCluster = process.env.E2E_KUBECONFIG;
/** `npm test` leaves test/e2e out; run directly, this file runs only with NVCF_E2E=1 (as `npm run test:e2e` sets). */
const skip = e2eSkip({ tools, missing });

/**
 * The e2e stack file's config, as a user writes it: Pulumi.dev.yaml's, with local charts, no
 * awaiting, one same-cluster GPU plane with every add-on on (their charts from the same local
 * directory), and nothing installed by hand: the Gateway prerequisites and Kyverno come with the
 * stack, and Kyverno injects the pull secret. The secrets are set with `pulumi config set --secret`.
 */
function stackConfig(icmsUrl: string, openbaoUrl: string, charts: string, gatewayCrds: string) {
    return e2eStackConfig({
        cluster: { clusterIdentifier: "e2e", skipAwait: true },
        charts,
        controlPlane: {
            observability: { profile: "control", chartsPath: charts },
            nats: { workerAuth: "nkey" },
            adminIssuerProxy: { enabled: true },
            certManager: { enabled: true, deleteNamespaceOnDestroy: true },
            ingress: {
                gatewayApi: { install: { enabled: true, crdsManifest: gatewayCrds, envoyGateway: { version: FIXTURE_VERSION } } },
            },
        },
        other: {
            computePlanes: [gpuPlane(icmsUrl, charts, { addons: ADDON_SWITCHES })],
            registry: { pullSecret: { mode: "kyverno" }, kyverno: { install: true, version: FIXTURE_VERSION } },
            openbaoAccess: { address: openbaoUrl },
            // Short, so the failing-gate case below ends quickly; the checks themselves are all on.
            checks: {
                healthGate: { timeoutSeconds: 20, pollSeconds: 1 },
                // The platform check through the suite's stand-in for the API and API Keys (no Gateway runs here).
                smoke: { pollSeconds: 1, platform: true, functionImage: SMOKE_IMAGE, apiURL: icmsUrl, apiKeysURL: icmsUrl },
            },
        },
    });
}

interface ReleaseRecord {
    name: string;
    namespace: string;
    status: string;
    firstDeployed: string;
}

/** A Helm release secret's payload: base64(gzip(JSON)) inside the Secret's base64 data. */
function decodeRelease(secret: any): ReleaseRecord {
    const raw = Buffer.from(Buffer.from(secret.data.release, "base64").toString("utf8"), "base64");
    const rel = JSON.parse(zlib.gunzipSync(raw).toString("utf8"));
    return { name: rel.name, namespace: rel.namespace, status: rel.info.status, firstDeployed: rel.info.first_deployed };
}

/** Sortable nanosecond timestamp from Helm's RFC 3339 (nano) time. */
function nanos(t: string): bigint {
    const m = /^(.*T\d\d:\d\d:\d\d)(?:\.(\d+))?(Z|[+-]\d\d:\d\d)$/.exec(t);
    assert.ok(m, `unparsable time ${t}`);
    const secs = BigInt(Math.floor(Date.parse(`${m[1]}${m[3]}`) / 1000));
    return secs * 1_000_000_000n + BigInt((m[2] ?? "0").padEnd(9, "0").slice(0, 9));
}

/** Every value anywhere in a JSON document (object members and list items) that `pred` accepts. */
function findAll(doc: unknown, pred: (key: string, value: unknown) => boolean, out: unknown[] = []): unknown[] {
    if (Array.isArray(doc)) {
        doc.forEach((d, i) => {
            if (pred(String(i), d)) out.push(d);
            findAll(d, pred, out);
        });
    } else if (doc && typeof doc === "object") {
        for (const [k, v] of Object.entries(doc)) {
            if (pred(k, v)) out.push(v);
            findAll(v, pred, out);
        }
    }
    return out;
}

describe("end-to-end: real engine, real provider, real API server", { skip }, () => {
    let cluster: LocalCluster | undefined;
    let kubeconfig = "";
    let kube: Kube;
    const fake = new FakeControlPlane();
    let openbao: BaoCluster;
    let hooks: HookKubelet;
    let work = "";
    let project = "";
    let cli: PulumiCli;
    let releases: { name: string; namespace: string }[] = [];
    const timings: Record<string, number> = {};
    let benchInstallMs = new Map<string, number>();
    /** What the first full `pulumi up` used, for the operator's workspace size (bench:e2e prints it). */
    let upUsage: TreeUsage | undefined;

    async function timed<T>(label: string, f: () => Promise<T>): Promise<T> {
        const t0 = Date.now();
        try {
            return await f();
        } finally {
            timings[label] = Date.now() - t0;
            console.log(`# e2e timing ${label}: ${((Date.now() - t0) / 1000).toFixed(1)} s`);
        }
    }

    /** The stack file, edited as a user edits it. */
    const stackFile = () => path.join(project, `Pulumi.${STACK}.yaml`);
    function editStackFile(edit: (config: Record<string, any>) => void): void {
        const doc = parseYaml(fs.readFileSync(stackFile(), "utf8")) as { config: Record<string, any> };
        edit(doc.config);
        fs.writeFileSync(stackFile(), toYaml(doc));
    }

    async function deployedResources(): Promise<any[]> {
        // `stack export` prints the deployment as JSON by itself (it has no --json flag).
        const { stdout } = await cli.run(["stack", "export"]);
        const state = JSON.parse(stdout) as { deployment?: { resources?: any[] } };
        return state.deployment?.resources ?? [];
    }

    before(async () => {
        work = fs.mkdtempSync(path.join(os.tmpdir(), "nvcf-e2e-"));
        if (realCluster) {
            kubeconfig = fs.readFileSync(realCluster, "utf8");
        } else {
            cluster = new LocalCluster(tools!);
            await cluster.boot();
            kubeconfig = cluster.kubeconfig;
        }
        kube = new Kube(kubeconfig);
        // Nothing is created by hand: the stack owns the Envoy Gateway namespace with ingress.gatewayApi.install.
        await fake.start();
        // One member is enough here: the stack reaches OpenBao at an address (openbaoAccess), not through its pods.
        openbao = new BaoCluster(tools!.bao, path.join(work, "bao"), openbaoChartConfig(tools!.crds), 1, tools!.jwtPlugin);
        await openbao.boot();
        // The charts' test Pods: the invocation service's and the function autoscaler's, both in nvcf.
        hooks = new HookKubelet(kube, ["nvcf"]);
        hooks.start();

        // The README's set-up, command for command.
        ({ project, cli } = await userCheckout({
            repo: REPO,
            work,
            tools: tools!,
            kubeconfig,
            stack: STACK,
            // NVIDIA's fixture charts, with the real Kyverno CRD in its chart, and Gateway API's real experimental-install.yaml.
            config: stackConfig(
                fake.icmsUrl,
                openbao.url(openbao.names[0]),
                chartsWithUpstreamCrds(tools!.crds, work),
                gatewayApiInstallFile(tools!.crds, work),
            ),
            secrets: { ngcApiKey: NGC_KEY, cassandraPassword: CASSANDRA_PASSWORD, kubeconfig },
        }));
        const stored = fs.readFileSync(stackFile(), "utf8");
        assert.ok(!stored.includes(NGC_KEY) && !stored.includes(CASSANDRA_PASSWORD), "secrets are stored encrypted");
    });

    after(async () => {
        if (process.env.E2E_BENCH_OUT) {
            const enabled = CATALOG.filter((e) => benchInstallMs.has(e.name));
            const deps = Object.fromEntries(releaseDependencies(enabled));
            // The compute plane: the operator waits for the SMB driver, the add-ons and the registration's path.
            deps["csi-driver-smb"] = [];
            for (const [name, needs] of addonDependencies(ADDONS)) deps[name] = needs;
            const registration = REGISTRATION_NEEDS.map((n) => n.release).filter((n) => benchInstallMs.has(n));
            deps["nvca-operator"] = [...registration, "csi-driver-smb", ...ADDON_RELEASES];
            fs.writeFileSync(
                process.env.E2E_BENCH_OUT,
                JSON.stringify({ timings, installMs: Object.fromEntries(benchInstallMs), deps, upUsage }, null, 2),
            );
        }
        // Best effort: a failed run still tears down what it can, then the processes always stop.
        try {
            if (cli && process.env.E2E_KEEP !== "1" && (await deployedResources().catch(() => [])).length > 0) {
                await withNamespaceFinalizer(() => cli.run(["destroy", "--yes"], { allowFailure: true })).catch(() => undefined);
            }
        } finally {
            if (process.env.E2E_LOG && cli) fs.writeFileSync(process.env.E2E_LOG, cli.log.join("\n\n"));
            await fake.stop().catch(() => undefined);
            await hooks?.stop().catch(() => undefined);
            await openbao?.stop().catch(() => undefined);
            await cluster?.stop();
            if (process.env.E2E_KEEP !== "1") {
                cluster?.removeDir();
                if (work) fs.rmSync(work, { recursive: true, force: true });
            } else console.log(`# e2e kept: ${work} ${cluster?.dir ?? ""}`);
        }
    });

    /** Namespaces deleted during `f` are finalized by the suite (no controller manager here; a real cluster has one). */
    const withNamespaceFinalizer = <T>(f: () => Promise<T>): Promise<T> => (realCluster ? f() : finalizingNamespaces(kube, f));

    async function releaseSecrets(): Promise<any[]> {
        const list = await kube.get<any>("/api/v1/secrets?labelSelector=owner%3Dhelm");
        return (list?.items ?? []).filter((s: any) => s.type === "helm.sh/release.v1");
    }

    /** `npm run status` as a user runs it: the stack's kubeconfig is a stack secret, which status never decrypts, so the file is passed. */
    const status = (args: string[]) =>
        new Promise<{ code: number | null; out: string }>((resolve) => {
            const child = spawn(
                "npm",
                ["run", "--silent", "status", "--", "--stack", STACK, "--kubeconfig", path.join(work, "kubeconfig"), ...args],
                {
                    cwd: project,
                    env: cli.env,
                },
            );
            let out = "";
            child.stdout.on("data", (c: Buffer) => (out += c.toString("utf8")));
            child.stderr.on("data", (c: Buffer) => (out += c.toString("utf8")));
            child.on("close", (code) => resolve({ code, out }));
        });

    it("previews the whole stack", { timeout: 5 * MIN }, async () => {
        const res = await timed("preview (first)", () => cli.json<{ changeSummary: Record<string, number> }>(["preview"]));
        assert.ok((res.changeSummary.create ?? 0) > 40, `expected a full stack to create, got ${JSON.stringify(res.changeSummary)}`);
    });

    /** Creates an object; an existing one is fine (a rerun of a step). */
    async function create(p: string, body: any): Promise<void> {
        const res = await kube.request("POST", p, body);
        assert.ok(res.status === 201 || res.status === 409, `POST ${p}: ${res.status} ${res.text.slice(0, 300)}`);
    }

    /** The GPU operator's ClusterPolicy CRD, which preflight asks for by name (the GPU operator is no source the suite builds from): any schema. */
    const crd = (group: string, plural: string, kind: string) => ({
        apiVersion: "apiextensions.k8s.io/v1",
        kind: "CustomResourceDefinition",
        metadata: { name: `${plural}.${group}` },
        spec: {
            group,
            scope: "Cluster",
            names: { plural, kind, singular: kind.toLowerCase(), listKind: `${kind}List` },
            versions: [
                {
                    name: "v1",
                    served: true,
                    storage: true,
                    schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } },
                },
            ],
        },
    });
    const CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";

    /**
     * What the cluster's controllers and NVCA would do during `up` (there is no kubelet, no
     * controller manager, no NVCA here): once a release's namespace exists, the account bootstrap
     * Job succeeds, OpenBao's StatefulSet is ready, NVCA creates its healthy NVCFBackend, its agent
     * pod turns Ready and its model-cache namespace appears. Errors are kept for the test to show.
     */
    const controllerErrors: string[] = [];
    async function withFakeControllers<T>(f: () => Promise<T>): Promise<T> {
        const step = async (ns: string, fn: () => Promise<void>) => {
            if (!(await kube.get<any>(`/api/v1/namespaces/${ns}`))) return;
            await fn().catch((err) => controllerErrors.push(String(err)));
        };
        const now = new Date().toISOString().replace(/\.\d+Z$/, "Z");
        return whileLooping(async () => {
            await step("nvcf", async () => {
                const p = "/apis/batch/v1/namespaces/nvcf/jobs";
                if (await kube.get(`${p}/nvcf-api-account-bootstrap`)) return;
                await create(p, {
                    metadata: { name: "nvcf-api-account-bootstrap" },
                    spec: {
                        suspend: true,
                        template: {
                            spec: { restartPolicy: "OnFailure", containers: [{ name: "bootstrap", image: "alpine-k8s:1.36.1" }] },
                        },
                    },
                });
                const job = await kube.get<any>(`${p}/nvcf-api-account-bootstrap`);
                const status = {
                    startTime: now,
                    completionTime: now,
                    succeeded: 1,
                    conditions: [
                        { type: "SuccessCriteriaMet", status: "True", lastTransitionTime: now, lastProbeTime: now },
                        { type: "Complete", status: "True", lastTransitionTime: now, lastProbeTime: now },
                    ],
                };
                const res = await kube.request("PUT", `${p}/nvcf-api-account-bootstrap/status`, { ...job, status });
                assert.equal(res.status, 200, res.text.slice(0, 300));
            });
            // The routes the ingress release makes, as Envoy Gateway reports them once it accepts them
            // (the stack creates the HTTPRoute CRD and the Gateway's namespace during this run).
            await step(GATEWAY_NS, async () => {
                const crdObj = await kube.get<any>(`${CRDS}/httproutes.gateway.networking.k8s.io`);
                if (!crdObj?.status?.conditions?.some((c: any) => c.type === "Established" && c.status === "True")) return;
                const p = `/apis/gateway.networking.k8s.io/v1/namespaces/${GATEWAY_NS}/httproutes`;
                for (const route of ["api", "sis"]) {
                    if ((await kube.get<any>(`${p}/${route}`))?.status?.parents?.length) continue;
                    await create(p, {
                        apiVersion: "gateway.networking.k8s.io/v1",
                        kind: "HTTPRoute",
                        metadata: { name: route },
                        spec: { parentRefs: [{ name: "nvcf-gateway" }] },
                    });
                    const obj = await kube.get<any>(`${p}/${route}`);
                    const status = {
                        parents: [
                            {
                                parentRef: { name: "nvcf-gateway" },
                                controllerName: "gateway.envoyproxy.io/gatewayclass-controller",
                                conditions: [
                                    { type: "Accepted", status: "True", reason: "Accepted", lastTransitionTime: now, message: "" },
                                ],
                            },
                        ],
                    };
                    const res = await kube.request("PUT", `${p}/${route}/status`, { ...obj, status });
                    assert.equal(res.status, 200, res.text.slice(0, 300));
                }
            });
            await step("vault-system", async () => {
                const p = "/apis/apps/v1/namespaces/vault-system/statefulsets";
                if ((await kube.get<any>(`${p}/openbao-server`))?.status?.readyReplicas) return;
                await create(p, {
                    metadata: { name: "openbao-server" },
                    spec: {
                        replicas: 1,
                        serviceName: "openbao-server",
                        selector: { matchLabels: { app: "openbao" } },
                        template: {
                            metadata: { labels: { app: "openbao" } },
                            spec: { containers: [{ name: "openbao", image: "openbao" }] },
                        },
                    },
                });
                const sts = await kube.get<any>(`${p}/openbao-server`);
                const status = {
                    replicas: 1,
                    readyReplicas: 1,
                    availableReplicas: 1,
                    currentReplicas: 1,
                    updatedReplicas: 1,
                    observedGeneration: sts.metadata.generation,
                };
                const res = await kube.request("PUT", `${p}/openbao-server/status`, { ...sts, status });
                assert.equal(res.status, 200, res.text.slice(0, 300));
            });
            await step("nvca-system", async () => {
                // The plane's namespaces are created in any order: the NVCFBackend lives in nvca-operator.
                if (!(await kube.get("/api/v1/namespaces/nvca-operator"))) return;
                const p = "/apis/nvcf.nvidia.io/v1/namespaces/nvca-operator/nvcfbackends";
                if (!(await kube.get(`${p}/${GPU}`))) {
                    // The operator creates it from the cluster DTO (the program reads no spec), then writes its status through /status.
                    await create(p, { apiVersion: "nvcf.nvidia.io/v1", kind: "NVCFBackend", metadata: { name: GPU }, spec: {} });
                    const obj = await kube.get<any>(`${p}/${GPU}`);
                    const res = await kube.request("PUT", `${p}/${GPU}/status`, { ...obj, status: { agentStatus: AGENT_STATUS.healthy } });
                    assert.equal(res.status, 200, res.text.slice(0, 300));
                }
                const pods = "/api/v1/namespaces/nvca-system/pods";
                if (!(await kube.get(`${pods}/nvca-0`))) {
                    await create(pods, { metadata: { name: "nvca-0" }, spec: { containers: [{ name: "nvca", image: "nvca" }] } });
                    const pod = await kube.get<any>(`${pods}/nvca-0`);
                    const status = { phase: "Running", conditions: [{ type: "Ready", status: "True", lastTransitionTime: now }] };
                    const res = await kube.request("PUT", `${pods}/nvca-0/status`, { ...pod, status });
                    assert.equal(res.status, 200, res.text.slice(0, 300));
                }
                if (!(await kube.get("/api/v1/namespaces/nvca-modelcache-init"))) {
                    await create("/api/v1/namespaces", { metadata: { name: "nvca-modelcache-init" } });
                }
            });
        }, f);
    }

    it("stops up at preflight, before any release, when the control plane's prerequisites are missing", { timeout: 10 * MIN }, async () => {
        // This API server has no StorageClass and no GPU; the Gateway API CRDs and the Gateway are
        // the stack's own (ingress.gatewayApi.install), so preflight does not ask for them.
        const res = await cli.run(["up", "--yes", "--skip-preview"], { allowFailure: true });
        assert.notEqual(res.code, 0, "preflight fails the run");
        const out = res.stdout + res.stderr;
        assert.match(out, /preflight of the control plane failed, so no release there was touched/);
        assert.doesNotMatch(out, /gateway-api-crds/, "no check of what the stack installs itself");
        assert.match(out, /storage-class: no StorageClass is marked default and there is none\. Fix: mark one default/);
        assert.deepEqual(await releaseSecrets(), [], "no Helm release was installed");
    });

    it("creates the prerequisites preflight asked for", { timeout: 2 * MIN }, async () => {
        await create(CRDS, crd("nvidia.com", "clusterpolicies", "ClusterPolicy"));
        // The NVCA operator's CRDs, NVIDIA's own: its chart (here a fixture without them) and the operator create them.
        await installCrds(kube, upstreamCrds(tools!.crds, "nvca"));
        await create("/apis/storage.k8s.io/v1/storageclasses", {
            metadata: { name: "standard", annotations: { "storageclass.kubernetes.io/is-default-class": "true" } },
            provisioner: "example.com/none",
        });
    });

    it("installs it with pulumi up", { timeout: 15 * MIN }, async () => {
        // Each release's install time, from the engine's events as they arrive (for bench:e2e).
        const started = new Map<string, number>();
        const installMs = new Map<string, number>();
        const onEvent = ({ event, at }: TimedEvent) => {
            const pre = event.resourcePreEvent?.metadata;
            if (pre?.type === "kubernetes:helm.sh/v3:Release" && pre.op === "create") started.set(pre.urn, at);
            const out = event.resOutputsEvent?.metadata;
            if (out && started.has(out.urn)) installMs.set(out.new?.inputs?.name ?? out.urn, at - started.get(out.urn)!);
        };
        const measure = (u: TreeUsage) => (upUsage = u);
        await timed("up", () => withFakeControllers(() => cli.run(["up", "--yes", "--skip-preview"], { onEvent, measure })));
        assert.deepEqual(controllerErrors, [], "the fake controllers did their part");
        // The gates passed against what the test drove, each check by name.
        const gates = (await deployedResources()).filter((r: any) => /HealthGate|Preflight/.test(r.type));
        const results = Object.fromEntries(
            gates.map((g: any) => [g.urn.split("::").pop(), g.outputs.results.map((c: any) => `${c.name}:${c.ok}`)]),
        );
        assert.deepEqual(results, {
            "control-plane-preflight": ["kubernetes-version:true", "cluster-admin:true", "storage-class:true"],
            "control-plane-health-gate": ["account-bootstrap:true", "openbao:true", "routes:true", "workloads:true"],
            [`compute-plane-${GPU}-preflight`]: ["kubernetes-version:true", "cluster-admin:true", "gpu:true"],
            [`compute-plane-${GPU}-health-gate`]: ["workloads:true", "nvcfbackend:true", "nvca-pods:true"],
        });
        releases = (await deployedResources())
            .filter((r: any) => r.type === "kubernetes:helm.sh/v3:Release")
            .map((r: any) => ({ name: r.inputs.name, namespace: r.inputs.namespace }));
        benchInstallMs = installMs;
        for (const must of [
            "nats",
            "openbao-server",
            "cassandra",
            "api",
            "admin-issuer-proxy",
            "ingress",
            "function-autoscaler",
            "otel-collector",
            "csi-driver-smb",
            ...ADDON_RELEASES,
            "nvca-operator",
            "eg",
            "kyverno",
        ]) {
            assert.ok(
                releases.some((r) => r.name === must),
                `release ${must} declared`,
            );
        }
    });

    it("created every namespace and pull secret", { timeout: MIN }, async () => {
        for (const ns of STACK_NAMESPACES) {
            const obj = await kube.get<any>(`/api/v1/namespaces/${ns}`);
            assert.ok(obj, `namespace ${ns}`);
            assert.equal(obj.status.phase, "Active");
            const secret = await kube.get<any>(`/api/v1/namespaces/${ns}/secrets/nvcr-pull-secret`);
            assert.ok(secret, `pull secret in ${ns}`);
            assert.equal(secret.type, "kubernetes.io/dockerconfigjson");
            const docker = JSON.parse(Buffer.from(secret.data[".dockerconfigjson"], "base64").toString("utf8"));
            const auth = docker.auths["nvcr.io"];
            assert.ok(auth, `nvcr.io entry in ${ns}: ${Object.keys(docker.auths)}`);
            assert.equal(Buffer.from(auth.auth, "base64").toString("utf8"), `$oauthtoken:${NGC_KEY}`);
        }
        for (const ns of ["api-keys", "ess", "sis", "nvcf", GATEWAY_NS]) {
            const obj = await kube.get<any>(`/api/v1/namespaces/${ns}`);
            assert.equal(obj.metadata.labels["nvcf/platform"], "true", `${ns} label`);
        }
        // Kyverno's own namespace is the stack's, without the NVCF credential.
        assert.ok(await kube.get("/api/v1/namespaces/kyverno"), "namespace kyverno");
        assert.equal(await kube.get(`/api/v1/namespaces/kyverno/secrets/${PULL_SECRET}`), undefined);
    });

    it(
        "installed the Gateway prerequisites: the CRDs, a GatewayClass and the Gateway with the routes' listeners",
        { timeout: MIN },
        async () => {
            for (const crd of ["gatewayclasses", "gateways", "httproutes"]) {
                const obj = await kube.get<any>(`/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd}.gateway.networking.k8s.io`);
                assert.ok(obj, `CRD ${crd}`);
                assert.equal(obj.metadata.annotations["gateway.networking.k8s.io/bundle-version"], "v1.2.0");
            }
            const gatewayClass = await kube.get<any>("/apis/gateway.networking.k8s.io/v1/gatewayclasses/eg");
            assert.equal(gatewayClass?.spec.controllerName, "gateway.envoyproxy.io/gatewayclass-controller");
            const gateway = await kube.get<any>(`/apis/gateway.networking.k8s.io/v1/namespaces/${GATEWAY_NS}/gateways/nvcf-gateway`);
            assert.ok(gateway, "Gateway envoy-gateway/nvcf-gateway");
            assert.equal(gateway.spec.gatewayClassName, "eg");
            const selector = { namespaces: { from: "Selector", selector: { matchLabels: { "nvcf/platform": "true" } } } };
            assert.deepEqual(gateway.spec.listeners, [
                { name: "http", protocol: "HTTP", port: 80, allowedRoutes: selector },
                { name: "tcp", protocol: "TCP", port: 10081, allowedRoutes: selector },
            ]);
        },
    );

    it("installed Kyverno's ClusterPolicies: the pull secret on every pod of each plane's namespaces", { timeout: MIN }, async () => {
        const policy = async (name: string) => (await kube.get<any>(`/apis/kyverno.io/v1/clusterpolicies/${name}`))?.spec.rules[0];
        const cpRule = await policy("nvcf-pull-secret");
        assert.ok(cpRule, "ClusterPolicy nvcf-pull-secret");
        const planeNamespaces = ["nvca-operator", "nvca-system", "nvcf-backend", "kai-scheduler", "grove-system", "dynamo-system"];
        assert.deepEqual(
            [...cpRule.match.any[0].resources.namespaces].sort(),
            STACK_NAMESPACES.filter((ns) => !planeNamespaces.includes(ns)).sort(),
        );
        assert.deepEqual(cpRule.mutate.patchStrategicMerge.spec.imagePullSecrets, [{ name: PULL_SECRET }]);
        const planeRule = await policy(`nvcf-pull-secret-${GPU}`);
        assert.deepEqual([...planeRule.match.any[0].resources.namespaces].sort(), [...planeNamespaces].sort());
    });

    it("created the node-inotify-tuner DaemonSet as the runbook gives it", { timeout: MIN }, async () => {
        const ds = await kube.get<any>("/apis/apps/v1/namespaces/kube-system/daemonsets/node-inotify-tuner");
        assert.ok(ds, "DaemonSet kube-system/node-inotify-tuner");
        const pod = ds.spec.template.spec;
        assert.equal(pod.hostPID, true);
        assert.equal(pod.priorityClassName, "system-node-critical");
        assert.ok(
            pod.tolerations.some((t: any) => t.operator === "Exists" && !t.key),
            "tolerates every taint",
        );
        const init = pod.initContainers[0];
        assert.equal(init.securityContext.privileged, true);
        const script = [...(init.command ?? []), ...(init.args ?? [])].join(" ");
        assert.match(script, /8192/);
        assert.match(script, /524288/);
    });

    it(
        "runs every cluster's resources on the kubernetes provider version the suite built, as the program declares it",
        { timeout: MIN },
        async () => {
            // What recover edits of the provider's bookkeeping was verified on this version (lib/contracts/pulumi-state.ts).
            const providers = (await deployedResources()).filter((r) => String(r.type).startsWith("pulumi:providers:kubernetes"));
            assert.ok(providers.length > 0, "the clusters' providers are recorded");
            for (const p of providers) assert.equal(p.inputs?.version, KUBERNETES_PROVIDER_VERSION, p.urn);
            assert.equal(process.env.E2E_K8S_PROVIDER_VERSION ?? KUBERNETES_PROVIDER_VERSION, KUBERNETES_PROVIDER_VERSION);
        },
    );

    it("installed a Helm release for every declared release, in dependency order", { timeout: MIN }, async () => {
        const secrets = await releaseSecrets();
        const byName = new Map<string, ReleaseRecord>();
        for (const r of releases) {
            const s = secrets.find((x) => x.metadata.namespace === r.namespace && x.metadata.name === `sh.helm.release.v1.${r.name}.v1`);
            assert.ok(s, `release secret of ${r.name} in ${r.namespace}`);
            const rec = decodeRelease(s);
            assert.equal(rec.status, "deployed", `${r.name} status`);
            byName.set(r.name, rec);
        }
        const enabled = CATALOG.filter((e) => byName.has(e.name));
        const deps = releaseDependencies(enabled);
        const planeReleases = ["csi-driver-smb", ...ADDON_RELEASES, "nvca-operator"];
        const after = (name: string, first: string) =>
            assert.ok(nanos(byName.get(first)!.firstDeployed) < nanos(byName.get(name)!.firstDeployed), `${name} installed after ${first}`);
        // The add-ons by the bundle's needs (the topology after its scheduler, Grove's binding after both).
        for (const [name, needs] of [...deps, ...addonDependencies(ADDONS)]) for (const need of needs) after(name, need);
        // Kyverno (its policy gives every pod the pull secret) comes before every NVCF release; Envoy
        // Gateway before those whose routes attach to its Gateways.
        for (const name of byName.keys()) {
            // The SMB CSI driver (kube-system) is the GPU cluster's own prerequisite: it waits for neither.
            if (["eg", "kyverno", "csi-driver-smb"].includes(name)) continue;
            after(name, "kyverno");
        }
        for (const name of enabled.filter((e) => e.attachesToGateways).map((e) => e.name)) after(name, "eg");
        // The operator waits for its cluster's prerequisites and the registration, which waits for ICMS's path.
        for (const name of ["csi-driver-smb", ...ADDON_RELEASES]) after("nvca-operator", name);
        for (const need of REGISTRATION_NEEDS.filter((n) => byName.has(n.release))) after("nvca-operator", need.release);
        assert.ok(planeReleases.every((n) => byName.has(n)));
    });

    it("gave the releases the expected values", { timeout: MIN }, async () => {
        const values = new Map<string, any>();
        for (const r of releases) {
            const cm = await kube.get<any>(`/api/v1/namespaces/${r.namespace}/configmaps/e2e-values-${r.name}`);
            assert.ok(cm, `fixture ConfigMap of ${r.name}`);
            values.set(r.name, JSON.parse(cm.data.values));
        }
        const all = [...values.values()];
        const serviceRole = findAll(all, (k) => k === "serviceRolePassword");
        const envEntries = findAll(all, (_k, v) => !!v && typeof v === "object" && (v as any).name === "DEFAULT_CASSANDRA_PASSWORD") as {
            value: string;
        }[];
        assert.deepEqual(serviceRole, [CASSANDRA_PASSWORD], "cassandra.serviceRolePassword");
        assert.ok(envEntries.length > 0, "DEFAULT_CASSANDRA_PASSWORD set");
        for (const e of envEntries)
            assert.equal(e.value, CASSANDRA_PASSWORD, "DEFAULT_CASSANDRA_PASSWORD equals the service-role password");
        assert.equal(values.get("nats").nats?.workerAuth ?? "nkey", "nkey", "NATS worker auth");
        assert.equal(values.get("api").api?.natsWorkerAuth ?? "nkey", "nkey", "api NATS worker auth");

        // Kyverno injects the pull secret: no chart's values name it, except NVCA's, whose mirror forwards it.
        for (const [name, v] of values) {
            if (name !== "nvca-operator") assert.ok(!JSON.stringify(v).includes(`"${PULL_SECRET}"`), `${name} values name the pull secret`);
        }
        assert.deepEqual(values.get("nvca-operator").imagePullSecrets, [{ name: PULL_SECRET }]);
        assert.deepEqual(values.get("eg"), {}, "Envoy Gateway gets the configured values only");
        // The add-ons: the bundle's values, and NVCA's gates and merge config naming them.
        assert.equal(values.get("kai-scheduler").global.imagePullSecrets, undefined);
        assert.equal(values.get("kai-scheduler").defaultQueue.childName, "default-queue");
        assert.deepEqual(values.get("nvcf-kai-topology").kaiScheduler, { enabled: true });
        assert.deepEqual(values.get("nvcf-grove-topology").groveOperator, { enabled: true });
        assert.equal(values.get("nvcf-kai-topology").topologies[0].name, "nvcf-mnnvl-topology");
        assert.deepEqual(values.get("grove-operator").config.topologyAwareScheduling, { enabled: true });
        assert.deepEqual(values.get("dynamo-operator").global.grove, { enabled: true, install: false });
        const nvca = values.get("nvca-operator");
        for (const gate of ["KAIScheduler", "DynamoOperatorSupport"]) assert.ok(nvca.selfManaged.featureGateValues.includes(gate), gate);
        const policy = JSON.parse(nvca.agentConfig.mergeConfig).cluster.validationPolicy;
        assert.equal(policy.name, "Default");
        const kinds = policy.allowedExtraKubernetesTypes.map((t: { kind: string }) => t.kind);
        for (const kind of ["PodGroup", "PodCliqueSet", "PodGang", "DynamoGraphDeployment"]) assert.ok(kinds.includes(kind), kind);
    });

    it("registered the GPU cluster with the real API server's issuer and JWKS", { timeout: MIN }, async () => {
        const jwks = await kube.request("GET", "/openid/v1/jwks", undefined, "application/json", "application/jwk-set+json");
        assert.equal(jwks.status, 200);
        const discovery = await kube.get<any>("/.well-known/openid-configuration");
        const registered = [...fake.clusters.values()].filter((c) => c.clusterName === GPU);
        assert.equal(registered.length, 1, "one registration");
        assert.deepEqual(JSON.parse(registered[0].jwks), JSON.parse(jwks.text));
        assert.equal(registered[0].oidcIssuer, discovery.issuer);
        assert.ok(
            fake.requests.some((r) => r.method === "POST" && r.path === "/v1/admin/keys"),
            "admin token minted through the issuer proxy route",
        );
    });

    it(
        "ran the smoke check after the health gate: the charts' helm test Pods, then a function created and deleted through the API",
        { timeout: MIN },
        async () => {
            assert.deepEqual(hooks.errors, []);
            assert.deepEqual(
                hooks.ran.map((r) => [r.pod, r.image, r.args.join(" ")]).sort(),
                [
                    ["nvcf/function-autoscaler-test-connection", "busybox", "-qO- function-autoscaler.nvcf.svc.cluster.local:8080/health"],
                    ["nvcf/invocation-service-test-connection", "busybox", "invocation-service:8080"],
                ],
                "the Pods of the charts' test hooks, as Helm records them",
            );
            const record = (await kube.get<any>("/api/v1/namespaces/nvcf/configmaps/nvcf-smoke-result"))?.data;
            assert.ok(record, "the record status reads");
            const tests = JSON.parse(record.helmTests) as { release: string; phase: string; revision: number }[];
            assert.deepEqual(tests.map((t) => [t.release, t.phase]).sort(), [
                ["function-autoscaler", "Succeeded"],
                ["invocation-service", "Succeeded"],
            ]);
            const platform = JSON.parse(record.platform) as { ok: boolean; steps: { step: string }[] };
            assert.deepEqual(
                platform.steps.map((st) => st.step),
                ["admin token", "API through the Gateway", "function created", "function deleted"],
            );
            assert.equal(platform.ok, true);
            const created = fake.requests.filter((r) => r.method === "POST" && r.path === "/v2/nvcf/functions");
            assert.equal(created.length, 1);
            assert.equal(JSON.parse(created[0].body).containerImage, SMOKE_IMAGE);
            assert.equal(fake.functions.size, 0, "the function is gone again");
            const outputs = await cli.json<{ smoke: { helmTests: Record<string, string>; platform: string } }>(["stack", "output"]);
            assert.match(outputs.smoke.helmTests["invocation-service/invocation-service-test-connection"], /^Succeeded \(revision \d+\)$/);
            assert.match(outputs.smoke.platform, /^passed: admin token, /);
        },
    );

    it(
        "a failing helm test fails up, naming its Pod; status shows it; the next up runs the smoke check again",
        { timeout: 10 * MIN },
        async () => {
            // A change to one release: its new revision runs the smoke check again, and the preview says so.
            await cli.run(["config", "set", "--path", "releases.invocation-service.values.e2eSmoke", "1", "--type", "string"]);
            const preview = await cli.json<{ steps: any[] }>(["preview"]);
            assert.ok(preview.steps.some((st) => st.op === "update" && /::control-plane-smoke$/.test(st.urn)));
            hooks.failing.add("invocation-service-test-connection");
            try {
                const res = await cli.run(["up", "--yes", "--skip-preview"], { allowFailure: true });
                assert.notEqual(res.code, 0);
                assert.match(
                    res.stdout + res.stderr,
                    /the smoke check after install failed:\s+helm test invocation-service \(revision \d+\): Pod nvcf\/invocation-service-test-connection: Failed: container wget exited 1 \(Error\)/,
                );
                const failed = await status([]);
                assert.equal(failed.code, 1, failed.out);
                assert.match(
                    failed.out,
                    /\ncontrol plane +helm test invocation-service +FAIL +Pod nvcf\/invocation-service-test-connection failed at /,
                    failed.out,
                );
                assert.match(failed.out, /\ncontrol plane +platform smoke +ok +passed at /, failed.out);
            } finally {
                hooks.failing.clear();
            }
            const ran = hooks.ran.length;
            await cli.run(["up", "--yes", "--skip-preview"]);
            assert.equal(hooks.ran.length, ran + 2, "both charts' tests ran again");
            const passed = await status([]);
            assert.match(
                passed.out,
                /\ncontrol plane +helm test invocation-service +ok +revision \d+: invocation-service-test-connection passed in \d+ s/,
                passed.out,
            );
            await cli.run(["preview", "--expect-no-changes"]);
            // Back to the stack file the later cases start from: a new revision, and the smoke check once more.
            await cli.run(["config", "rm", "releases"]);
            await cli.run(["up", "--yes", "--skip-preview"]);
            assert.equal(hooks.ran.length, ran + 4);
        },
    );

    it("previews no change on an unchanged stack", { timeout: 5 * MIN }, async () => {
        await timed("preview (no change)", () => cli.run(["preview", "--expect-no-changes"]));
    });

    it("refreshes from the cluster and still previews no change", { timeout: 5 * MIN }, async () => {
        await timed("refresh", () => cli.run(["refresh", "--yes", "--skip-preview"]));
        await cli.run(["preview", "--expect-no-changes"]);
    });

    it(
        "re-checks on a rerun: an unhealthy NVCFBackend shows in preview and fails up with the command to inspect it",
        { timeout: 10 * MIN },
        async () => {
            const p = `/apis/nvcf.nvidia.io/v1/namespaces/nvca-operator/nvcfbackends/${GPU}`;
            const setHealth = async (agentStatus: AgentStatus) => {
                const obj = await kube.get<any>(p);
                const res = await kube.request("PUT", `${p}/status`, { ...obj, status: { agentStatus } });
                assert.equal(res.status, 200, res.text.slice(0, 300));
            };
            await setHealth(AGENT_STATUS.unhealthy);
            try {
                const preview = await cli.json<{ steps: any[] }>(["preview"]);
                const updates = preview.steps.filter((st) => st.op === "update").map((st) => st.urn.split("::").pop());
                assert.deepEqual(updates, [`compute-plane-${GPU}-health-gate`]);
                const res = await cli.run(["up", "--yes", "--skip-preview"], { allowFailure: true });
                assert.notEqual(res.code, 0);
                assert.match(
                    res.stdout + res.stderr,
                    new RegExp(
                        `the health gate of the compute plane ${GPU} still fails after 20 s:[\\s\\S]*nvcfbackend: the NVCFBackend ${GPU} reports "Unhealthy"\\. Fix: kubectl -n nvca-operator describe nvcfbackend ${GPU}`,
                    ),
                );
            } finally {
                await setHealth(AGENT_STATUS.healthy);
            }
            await cli.run(["up", "--yes", "--skip-preview"]);
            await cli.run(["preview", "--expect-no-changes"]);
        },
    );

    it("runs the policy pack: the stack passes, a latest image tag is stopped", { timeout: 10 * MIN }, async () => {
        await timed("preview (policy pack)", () => cli.run(["preview", "--policy-pack", "policies"]));
        const before = fs.readFileSync(stackFile(), "utf8");
        editStackFile((config) => {
            config["nvcf-self-managed:releases"] = { api: { values: { api: { image: { tag: "latest" } } } } };
        });
        try {
            const res = await cli.run(["preview", "--policy-pack", "policies"], { allowFailure: true });
            assert.notEqual(res.code, 0, "a mandatory violation fails the preview");
            assert.match(res.stdout + res.stderr, /no-latest-image-tag/);
        } finally {
            fs.writeFileSync(stackFile(), before);
        }
    });

    it(
        "previews an annotation set with `config set --path` as exactly one release update (and the smoke check after it), then applies it",
        { timeout: 10 * MIN },
        async () => {
            // With --path the CLI stores "2" as a number; annotation values are strings (docs/settings.md).
            await cli.run([
                "config",
                "set",
                "--path",
                'controlPlane.api.podAnnotations["e2e.example.com/revision"]',
                "2",
                "--type",
                "string",
            ]);
            const doc = parseYaml(fs.readFileSync(stackFile(), "utf8")) as { config: Record<string, any> };
            assert.deepEqual(doc.config["nvcf-self-managed:controlPlane"].api, { podAnnotations: { "e2e.example.com/revision": "2" } });
            const res = await timed("preview (annotation)", () => cli.json<{ steps: any[] }>(["preview"]));
            const updates = res.steps
                .filter((st) => st.op === "update")
                .map((st) => `${st.newState?.type} ${st.newState?.inputs?.name ?? st.urn.split("::").pop()}`)
                // The engine also diffs the default pulumi-nodejs (dynamic) provider whenever stack
                // config changes (it receives the stack's config); a provider, not a cluster object.
                .filter((u) => !u.startsWith("pulumi:providers:pulumi-nodejs "));
            // The release's new revision runs the smoke check again: the plan says so.
            assert.deepEqual(updates, ["kubernetes:helm.sh/v3:Release api", "pulumi-nodejs:dynamic/nvcf:SmokeCheck control-plane-smoke"]);
            await timed("up (annotation)", () => cli.run(["up", "--yes", "--skip-preview"]));
            const cm = await kube.get<any>("/api/v1/namespaces/nvcf/configmaps/e2e-values-api");
            assert.equal(JSON.parse(cm.data.values).api.podAnnotations["e2e.example.com/revision"], "2");
        },
    );

    it(
        "switches NATS to token mode and the admin issuer proxy off: the proxy goes, its OpenBao grant is revoked",
        { timeout: 10 * MIN },
        async () => {
            // What migration 10_setup_admin-issuer.sh leaves in OpenBao, next to migration 09's objects that must stay.
            await migration10(openbao.root);
            editStackFile((config) => {
                const cp = config["nvcf-self-managed:controlPlane"];
                cp.nats = { workerAuth: "token" };
                cp.adminIssuerProxy = { enabled: false };
            });
            await cli.run(["config", "set", "--secret", "openbaoToken", openbao.rootToken]);
            // Without the proxy's route nobody mints admin tokens: the registration needs one from config.
            fake.validTokens.add("e2e-idp-token");
            await cli.run(["config", "set", "--secret", "nvcfAdminToken", "e2e-idp-token"]);
            await timed("up (token mode, proxy off)", () => cli.run(["up", "--yes", "--skip-preview"]));

            const names = (await releaseSecrets()).map((sec) => decodeRelease(sec).name);
            assert.ok(!names.includes("admin-issuer-proxy"), "the admin-issuer-proxy release is uninstalled");
            const values = async (ns: string, release: string) =>
                JSON.parse((await kube.get<any>(`/api/v1/namespaces/${ns}/configmaps/e2e-values-${release}`)).data.values);
            const nats = (await values("nats-system", "nats")).nats;
            assert.equal(nats.workerAuth, "token");
            assert.equal(nats.authCallout.workerTokenAuth.webhookUrl, "http://api.nvcf.svc.cluster.local:8080/v2/nvcf/webhook/nats-auth");
            assert.equal((await values("nvcf", "api")).api.natsWorkerAuth, "token");
            // No value skips migration 10: the chart reads none; the revocation follows the release instead.
            assert.equal((await values("vault-system", "openbao-server")).openbao.migrations.adminIssuerProxy, undefined);

            // With the route off the gate checks the edge too; this Gateway has no load balancer: inconclusive, and the gate passed.
            const gate = (await deployedResources()).find(
                (r: any) => r.type === "pulumi-nodejs:dynamic/nvcf:HealthGate" && r.urn.includes("ControlPlane"),
            );
            const edge = gate?.outputs?.results?.find((r: any) => r.name === "admin-route-at-edge");
            assert.equal(edge?.ok, false, JSON.stringify(gate?.outputs?.results));
            assert.equal(edge?.inconclusive, true);
            assert.match(
                edge?.detail ?? "",
                /reports no load balancer address, so https:\/\/api-keys\.\S+\/v1\/admin\/keys was not checked at the edge/,
            );

            const status = async (p: string) => (await openbao.root("GET", p)).status;
            for (const p of Object.values(ADMIN_ISSUER_GRANT_PATHS)) assert.equal(await status(p), 404, `${p} revoked`);
            for (const p of ["auth/jwt/role/nvcf-api", `${NVCF_API_JWT_MOUNT}/roles/nvcf-api-admin`])
                assert.equal(await status(p), 200, `${p} kept`);
        },
    );

    it(
        "status --drift names a hand edit and a deletion inside a release, with who made the edit; a field the stack file ignores is not reported",
        { timeout: 5 * MIN },
        async () => {
            // status reads the kinds from the real API server's discovery (APIResourceList) and compares each object
            // through its server-side dry-run apply (dryRun=All): nothing here stands in for either.
            const where = (name: string) => releases.find((r) => r.name === name)!.namespace;
            const configMap = (name: string) => `/api/v1/namespaces/${where(name)}/configmaps/e2e-values-${name}`;
            // As `kubectl edit` changes an object: an update under its own field manager.
            const edit = async (name: string, data: Record<string, string>) => {
                const res = await kube.request(
                    "PATCH",
                    `${configMap(name)}?fieldManager=kubectl-edit`,
                    { data },
                    "application/merge-patch+json",
                );
                assert.equal(res.status, 200, res.text);
            };
            await edit("api", { chart: "edited by hand" });
            // Helm, inside the kubernetes provider, wrote the object as the provider's binary: the manager drift names as the release's.
            const managers = (await kube.get<any>(configMap("api"))).metadata.managedFields.map((m: any) => m.manager);
            assert.deepEqual(managers.sort(), [HELM_FIELD_MANAGER, "kubectl-edit"].sort());
            await edit("ess-api", { values: "{}" });
            const deleted = await kube.request("DELETE", configMap("sis"));
            assert.equal(deleted.status, 200, deleted.text);
            editStackFile((config) => {
                config["nvcf-self-managed:releases"] = { "ess-api": { driftIgnore: [{ kind: "ConfigMap", path: "data[values]" }] } };
            });

            const plain = await status([]);
            assert.equal(plain.code, 1, plain.out);
            assert.match(
                plain.out,
                /\ncontrol plane +release objects +FAIL +2 of \d+ releases differ from what Helm recorded: sis \(ConfigMap sis\/e2e-values-sis missing\), api \(ConfigMap nvcf\/e2e-values-api: 1 field\)\n +fix: npm run status -- --stack e2e --drift/,
                plain.out,
            );

            const drift = await status(["--drift"]);
            assert.equal(drift.code, 1, drift.out);
            assert.match(
                drift.out,
                /\ncontrol plane +objects api +FAIL +nvcf, revision \d+: ConfigMap nvcf\/e2e-values-api: 1 field\n/,
                drift.out,
            );
            assert.match(
                drift.out,
                /\n {4}data\.chart: recorded "helm-nvcf-api", live "edited by hand"; changed by kubectl-edit \(Update, \d{4}-\d\d-\d\dT[\d:]+Z\)\n/,
                drift.out,
            );
            assert.match(drift.out, /\n {2}ConfigMap sis\/e2e-values-sis: missing \(deleted; /, drift.out);
            // The edited field the stack file ignores is counted, not reported; every other release is as recorded.
            assert.match(
                drift.out,
                /\ncontrol plane +objects ess-api +ok +ess: \d+ objects as revision \d+ recorded them; 1 difference ignored by rule\n/,
                drift.out,
            );
            assert.doesNotMatch(drift.out, /data\[values\]/);
            assert.doesNotMatch(drift.out, /objects (?!api |sis )\S+ +(FAIL|INCONCLUSIVE)/, drift.out);
        },
    );

    it(
        "drift: correct puts the edited field and the deleted object back through pulumi up; a new hand edit shows in preview; a rerun changes nothing",
        { timeout: 10 * MIN },
        async () => {
            // Where the case before left them: api's ConfigMap edited as kubectl-edit, sis's deleted.
            const cm = (ns: string, release: string) => kube.get<any>(`/api/v1/namespaces/${ns}/configmaps/e2e-values-${release}`);
            assert.equal((await cm("nvcf", "api")).data.chart, "edited by hand");
            assert.equal(await cm("sis", "sis"), undefined);
            editStackFile((config) => {
                const releases = config["nvcf-self-managed:releases"];
                releases.api = { drift: "correct" };
                releases.sis = { drift: "correct" };
            });
            const steps = async (label: string) =>
                (await timed(label, () => cli.json<{ steps: any[] }>(["preview"]))).steps
                    .filter((st) => st.newState?.type === "pulumi-nodejs:dynamic/nvcf:ReleaseDriftCorrection" && st.op !== "same")
                    .map((st) => `${st.op} ${st.urn.split("::").pop()}`)
                    .sort();
            assert.deepEqual(await steps("preview (drift: correct)"), ["create control-plane-api-drift", "create control-plane-sis-drift"]);
            const up = await timed("up (drift: correct)", () => cli.run(["up", "--yes", "--skip-preview"]));
            assert.equal((await cm("nvcf", "api")).data.chart, "helm-nvcf-api", up.stdout + up.stderr);
            assert.equal((await cm("sis", "sis")).data.chart, "helm-nvcf-sis");
            // The edited field went back to the release's own field manager, as Helm wrote it.
            const owner = (await cm("nvcf", "api")).metadata.managedFields.find((m: any) => m.fieldsV1?.["f:data"]?.["f:chart"]);
            assert.equal(owner?.manager, HELM_FIELD_MANAGER);

            // A later hand edit: the correction's diff finds it, so the preview shows an update, and up puts it back.
            const edited = await kube.request(
                "PATCH",
                "/api/v1/namespaces/nvcf/configmaps/e2e-values-api?fieldManager=kubectl-edit",
                { data: { chart: "edited again" } },
                "application/merge-patch+json",
            );
            assert.equal(edited.status, 200, edited.text);
            assert.deepEqual(await steps("preview (drift found)"), ["update control-plane-api-drift"]);
            await timed("up (drift found)", () => cli.run(["up", "--yes", "--skip-preview"]));
            assert.equal((await cm("nvcf", "api")).data.chart, "helm-nvcf-api");
            assert.deepEqual(await steps("preview (corrected)"), [], "a rerun changes nothing");
        },
    );

    it("destroys everything it created", { timeout: 15 * MIN }, async () => {
        // The compute plane's releases by URN, to read the engine's delete steps in order.
        const planeReleases = new Map<string, string>(
            (await deployedResources())
                .filter(
                    (r: any) => r.type === "kubernetes:helm.sh/v3:Release" && [...ADDON_RELEASES, "nvca-operator"].includes(r.inputs.name),
                )
                .map((r: any) => [r.urn, r.inputs.name]),
        );
        assert.equal(planeReleases.size, ADDON_RELEASES.length + 1, "every add-on and the operator deployed before destroy");
        // The Gateway prerequisites and the Kyverno pieces by URN, labelled by kind and name.
        const tracked = new Map<string, string>(planeReleases);
        const cpReleases: string[] = [];
        const controlPlaneSecrets: string[] = [];
        for (const r of await deployedResources()) {
            const name = r.inputs?.metadata?.name ?? r.inputs?.name;
            if (r.type === "kubernetes:helm.sh/v3:Release" && r.urn.includes("ControlPlane")) {
                tracked.set(r.urn, `release ${name}`);
                if (!["eg", "kyverno"].includes(name)) cpReleases.push(`release ${name}`);
            }
            if (r.type === "kubernetes:core/v1:Secret" && r.urn.includes("ControlPlane") && r.urn.includes("PullSecrets")) {
                tracked.set(r.urn, `secret ${r.inputs.metadata.namespace}`);
                controlPlaneSecrets.push(`secret ${r.inputs.metadata.namespace}`);
            }
            for (const kind of ["CustomResourceDefinition", "GatewayClass", "Gateway", "ClusterPolicy"]) {
                if (r.type.endsWith(`:${kind}`)) tracked.set(r.urn, `${kind} ${name}`);
            }
        }
        const started = new Map<string, number>();
        const finished = new Map<string, number>();
        let seq = 0;
        const onEvent = ({ event }: TimedEvent) => {
            seq++;
            const pre = event.resourcePreEvent?.metadata;
            if (pre?.op === "delete" && tracked.has(pre.urn)) started.set(tracked.get(pre.urn)!, seq);
            const out = event.resOutputsEvent?.metadata;
            if (out?.op === "delete" && tracked.has(out.urn)) finished.set(tracked.get(out.urn)!, seq);
        };
        await timed("destroy", () => withNamespaceFinalizer(() => cli.run(["destroy", "--yes", "--skip-preview"], { onEvent })));
        // Reverse order: the operator first, then each add-on before what it needs.
        const removedBefore = (first: string, then: string) => {
            assert.ok(started.has(first) && started.has(then), `delete steps of ${first} and ${then}`);
            const firstDone = finished.get(first) ?? started.get(first)!;
            assert.ok(firstDone < started.get(then)!, `${first} removed before ${then}`);
        };
        for (const addon of ADDON_RELEASES) removedBefore("nvca-operator", addon);
        for (const [name, needs] of addonDependencies(ADDONS)) for (const need of needs) removedBefore(name, need);
        // Each control-plane release before what it needs.
        assert.ok(cpReleases.length > 20, `control-plane releases: ${cpReleases.length}`);
        const installed = CATALOG.filter((e) => cpReleases.includes(`release ${e.name}`));
        for (const [name, needs] of releaseDependencies(installed))
            for (const need of needs) removedBefore(`release ${name}`, `release ${need}`);
        // The Gateway prerequisites last: after the releases whose routes attach, the Gateway, its class, the controller, then the CRDs.
        const gateway = "Gateway nvcf-gateway";
        for (const e of installed.filter((e) => e.attachesToGateways)) removedBefore(`release ${e.name}`, gateway);
        removedBefore(gateway, "GatewayClass eg");
        removedBefore("GatewayClass eg", "release eg");
        for (const crd of ["gatewayclasses", "gateways", "httproutes"])
            removedBefore("release eg", `CustomResourceDefinition ${crd}.gateway.networking.k8s.io`);
        // Kyverno: each policy before the pull secrets it names, and before Kyverno itself.
        for (const secret of controlPlaneSecrets) removedBefore("ClusterPolicy nvcf-pull-secret", secret);
        removedBefore("ClusterPolicy nvcf-pull-secret", "release kyverno");
        removedBefore(`ClusterPolicy nvcf-pull-secret-${GPU}`, "release kyverno");
        assert.deepEqual(await deployedResources(), [], "the stack holds no resource");
        assert.deepEqual(
            (await releaseSecrets()).map((s) => `${s.metadata.namespace}/${s.metadata.name}`),
            [],
        );
        for (const ns of [...STACK_NAMESPACES, "kube-system", CONTROLLER_NS]) {
            const secret = await kube.get<any>(`/api/v1/namespaces/${ns}/secrets/nvcr-pull-secret`);
            assert.equal(secret, undefined, `pull secret left in ${ns}`);
        }
        for (const ns of STACK_NAMESPACES) {
            const obj = await kube.get<any>(`/api/v1/namespaces/${ns}`);
            assert.ok(!obj || obj.metadata.deletionTimestamp, `namespace ${ns} gone or terminating`);
        }
        for (const crd of ["gatewayclasses", "gateways", "httproutes"]) {
            const obj = await kube.get<any>(`/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd}.gateway.networking.k8s.io`);
            assert.ok(!obj || obj.metadata.deletionTimestamp, `CRD ${crd} gone`);
        }
        const policies = await kube.get<any>("/apis/kyverno.io/v1/clusterpolicies").catch(() => undefined);
        assert.deepEqual(
            (policies?.items ?? []).map((p: any) => p.metadata.name),
            [],
            "no ClusterPolicy left",
        );
        const kyvernoNs = await kube.get<any>("/api/v1/namespaces/kyverno");
        assert.ok(!kyvernoNs || kyvernoNs.metadata.deletionTimestamp, "namespace kyverno gone or terminating");
        // The NVCA teardown, after the operator's uninstall: its CRDs and namespaces are gone.
        for (const crd of upstreamCrds(tools!.crds, "nvca"))
            assert.equal(await kube.get(`${CRDS}/${crd.metadata.name}`), undefined, `CRD ${crd.metadata.name} left`);
        for (const ns of ["nvca-operator", "nvca-system", "nvcf-backend", "nvca-modelcache-init"]) {
            assert.equal(await kube.get(`/api/v1/namespaces/${ns}`), undefined, `namespace ${ns} left`);
        }
        assert.equal(
            await kube.get("/apis/apps/v1/namespaces/kube-system/daemonsets/node-inotify-tuner"),
            undefined,
            "tuner DaemonSet deleted",
        );
        assert.ok(
            fake.requests.some((r) => r.method === "DELETE" && r.path.startsWith("/v1/accounts/nvcf-default/clusters/")),
            "ICMS saw the deregistration",
        );
        assert.equal([...fake.clusters.values()].filter((c) => c.clusterName === GPU).length, 0);
    });
});
