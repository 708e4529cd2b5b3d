import * as assert from "node:assert/strict";
import * as zlib from "node:zlib";
import { describe, test } from "node:test";
import * as checks from "../lib/health/checks";
import type { Kube, KubeAnswer } from "../lib/kubernetes/client";
import { requiredGateways } from "../components/plane/health-specs";
import { ClusterChecksProvider, type ClusterChecksInputs } from "../components/providers/cluster-checks";
import { namespaceHolder, teardown } from "../components/providers/nvca-teardown";
import { controlPlaneSchema } from "../config/model/schema";
import { GATEWAY_API_CRDS, GATEWAY_API_INSTALL } from "../lib/contracts/gateway-api";
import { AGENT_STATUS, nvcfBackendPath } from "../lib/contracts/nvca";
import { conform } from "./support/conformance";
import { sealStatusAnswer } from "./support/openbao-answers";

/** A cluster as a map of paths to objects; lists are derived from the objects under a path. */
class FakeKube implements Kube {
    readonly server = "https://fake:6443";
    readonly objects = new Map<string, unknown>();
    readonly calls: string[] = [];
    /** Answers by exact path (method and path), before the objects. */
    readonly answers = new Map<string, KubeAnswer>();
    version = { major: "1", minor: "31", gitVersion: "v1.31.2" };
    allowed = true;
    unreachable = false;

    put(path: string, obj: unknown): this {
        conform(path, obj);
        this.objects.set(path, obj);
        return this;
    }

    async request(method: string, path: string, body?: unknown): Promise<KubeAnswer> {
        this.calls.push(`${method} ${path}`);
        if (this.unreachable) throw new Error("connect ECONNREFUSED");
        const canned = this.answers.get(`${method} ${path}`);
        if (canned) return canned;
        const reply = (status: number, b?: unknown) => ({ status, body: b, text: b === undefined ? "" : JSON.stringify(b) });
        if (method === "GET" && path === "/version") return reply(200, this.version);
        if (method === "POST" && path.endsWith("/selfsubjectaccessreviews")) return reply(201, { status: { allowed: this.allowed } });
        if (method === "DELETE") {
            const existed = this.objects.delete(path);
            return reply(existed ? 200 : 404, {});
        }
        if (method === "PATCH" || method === "PUT") return reply(200, body);
        const bare = path.split("?")[0];
        if (this.objects.has(bare)) return reply(200, this.objects.get(bare));
        const items = [...this.objects.entries()]
            .filter(([p]) => p.startsWith(`${bare}/`) && !p.slice(bare.length + 1).includes("/"))
            .map(([, o]) => o);
        const selector = /labelSelector=([^&]+)/.exec(path)?.[1];
        const wanted = selector
            ? decodeURIComponent(selector)
                  .split(",")
                  .map((kv) => kv.split("="))
            : [];
        const matching = items.filter((o) =>
            wanted.every(([k, v]) => (o as { metadata?: { labels?: Record<string, string> } }).metadata?.labels?.[k] === v),
        );
        return items.length > 0 || /\/(pods|jobs|secrets|deployments|statefulsets|httproutes|storageclasses|nodes)$/.test(bare)
            ? reply(200, { items: matching })
            : reply(404, { kind: "Status" });
    }
}

const CRD = (name: string) => `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`;
const gatewayApiCrds = (kube: FakeKube) => {
    for (const c of GATEWAY_API_CRDS) kube.put(CRD(`${c}.gateway.networking.k8s.io`), { metadata: { name: c } });
    return kube;
};

describe("preflight checks", () => {
    test("kubernetes-version: a supported version passes; an old one and an unreachable server fail with the fix", async () => {
        const kube = new FakeKube();
        assert.equal((await checks.kubernetesVersion(kube)).ok, true);
        kube.version = { major: "1", minor: "27+", gitVersion: "v1.27.3" };
        const old = await checks.kubernetesVersion(kube);
        assert.equal(old.ok, false);
        assert.match(old.detail, /1\.27 is older than 1\.28/);
        assert.match(old.fix, /upgrade/);
        kube.unreachable = true;
        const down = await checks.preflight(kube, { kubernetesVersion: true, clusterAdmin: true, gpu: true });
        assert.equal(down.length, 1, "an unreachable server is one failure, not one per check");
        assert.match(down[0].detail, /could not be reached: connect ECONNREFUSED/);
    });

    test("cluster-admin: allowed passes, denied fails naming the binding to create", async () => {
        const kube = new FakeKube();
        assert.equal((await checks.clusterAdmin(kube)).ok, true);
        kube.allowed = false;
        const r = await checks.clusterAdmin(kube);
        assert.equal(r.ok, false);
        assert.match(r.fix, /clusterrolebinding .*--clusterrole=cluster-admin/);
    });

    test("gateway-api: missing CRDs, a missing Gateway, a missing listener, then all present", async () => {
        const kube = new FakeKube();
        const gw = [
            {
                namespace: "envoy-gateway",
                name: "nvcf-gateway",
                listeners: [
                    { name: "http", port: 80 },
                    { name: "tcp", port: 10081 },
                ],
            },
        ];
        const noCrds = await checks.gatewayApi(kube, gw);
        assert.equal(noCrds[0].name, "gateway-api-crds");
        assert.equal(noCrds[0].ok, false);
        assert.ok(noCrds[0].fix.endsWith(GATEWAY_API_INSTALL), noCrds[0].fix);
        gatewayApiCrds(kube);
        const noGw = await checks.gatewayApi(kube, gw);
        assert.deepEqual(
            noGw.map((r) => r.ok),
            [true, false],
        );
        assert.match(noGw[1].detail, /envoy-gateway\/nvcf-gateway does not exist/);
        const path = "/apis/gateway.networking.k8s.io/v1/namespaces/envoy-gateway/gateways/nvcf-gateway";
        kube.put(path, { spec: { listeners: [{ name: "http", port: 80 }] } });
        const partial = await checks.gatewayApi(kube, gw);
        assert.equal(partial[1].ok, false);
        assert.match(partial[1].detail, /lacks the listener tcp:10081 \(it has http:80\)/);
        kube.put(path, {
            spec: {
                listeners: [
                    { name: "http", port: 80 },
                    { name: "tcp", port: 10081 },
                ],
            },
        });
        assert.ok((await checks.gatewayApi(kube, gw)).every((r) => r.ok));
    });

    test("the Gateways and listeners follow the settings: shared http, gRPC tcp, NATS and worker listeners when on", () => {
        const cp = controlPlaneSchema.parse({
            ingress: {
                gatewayApi: {
                    controllerNamespace: "envoy-gateway-system",
                    routes: { nats: { enabled: true }, grpcWorker: { enabled: true } },
                    gateways: {
                        shared: { name: "gw", namespace: "eg" },
                        grpc: { name: "gw", namespace: "eg" },
                        nats: { name: "nats-gw", namespace: "eg" },
                    },
                },
            },
        });
        assert.deepEqual(requiredGateways(cp), [
            {
                namespace: "eg",
                name: "gw",
                listeners: [
                    { name: "http", port: 80 },
                    { name: "tcp", port: 10081 },
                    { name: "worker-tcp", port: 10086 },
                ],
            },
            { namespace: "eg", name: "nats-gw", listeners: [{ name: "nats", port: 4222 }] },
        ]);
    });

    test("storage-class: a configured class must exist; with none configured, one must be default", async () => {
        const kube = new FakeKube();
        assert.match((await checks.storageClass(kube, "fast")).detail, /fast .* does not exist/);
        const none = await checks.storageClass(kube, "");
        assert.equal(none.ok, false);
        assert.match(none.fix, /is-default-class=true/);
        kube.put("/apis/storage.k8s.io/v1/storageclasses/fast", { metadata: { name: "fast" } });
        assert.equal((await checks.storageClass(kube, "fast")).ok, true);
        assert.equal((await checks.storageClass(kube, "")).ok, false, "not marked default");
        kube.put("/apis/storage.k8s.io/v1/storageclasses/std", {
            metadata: { name: "std", annotations: { "storageclass.kubernetes.io/is-default-class": "true" } },
        });
        assert.match((await checks.storageClass(kube, "")).detail, /default StorageClass is std/);
    });

    test("gpu: nodes advertising nvidia.com/gpu or the GPU Operator's CRD pass; neither fails", async () => {
        const kube = new FakeKube();
        kube.put("/api/v1/nodes/cpu", { metadata: { name: "cpu" }, status: { allocatable: { cpu: "4" } } });
        const r = await checks.gpu(kube);
        assert.equal(r.ok, false);
        assert.match(r.fix, /GPU Operator/);
        kube.put(CRD("clusterpolicies.nvidia.com"), {});
        assert.equal((await checks.gpu(kube)).ok, true);
        const k2 = new FakeKube().put("/api/v1/nodes/g", { status: { allocatable: { "nvidia.com/gpu": "8" } } });
        assert.match((await checks.gpu(k2)).detail, /1 node advertises/);
    });
});

function helmReleaseSecret(release: string, version: number, hooks: unknown[]) {
    const payload = zlib.gzipSync(Buffer.from(JSON.stringify({ name: release, hooks })));
    return {
        metadata: { name: `sh.helm.release.v1.${release}.v${version}`, labels: { owner: "helm", name: release, version: String(version) } },
        data: { release: Buffer.from(payload.toString("base64")).toString("base64") },
    };
}

describe("health checks", () => {
    const bootstrap = { namespace: "nvcf", job: "nvcf-api-account-bootstrap", release: "api" };
    const jobPath = "/apis/batch/v1/namespaces/nvcf/jobs/nvcf-api-account-bootstrap";

    test("account-bootstrap: a Complete Job passes, a Failed one fails with its log command", async () => {
        const kube = new FakeKube().put(jobPath, { status: { conditions: [{ type: "Complete", status: "True" }] } });
        assert.equal((await checks.accountBootstrap(kube, bootstrap)).ok, true);
        kube.put(jobPath, { status: { conditions: [{ type: "Failed", status: "True", message: "BackoffLimitExceeded" }] } });
        const r = await checks.accountBootstrap(kube, bootstrap);
        assert.equal(r.ok, false);
        assert.match(r.detail, /failed: BackoffLimitExceeded/);
        assert.match(r.fix, /kubectl -n nvcf logs job\/nvcf-api-account-bootstrap/);
    });

    test("account-bootstrap: with the Job gone (its TTL), Helm's hook record decides; with neither it never ran", async () => {
        const kube = new FakeKube();
        const never = await checks.accountBootstrap(kube, bootstrap);
        assert.equal(never.ok, false);
        assert.match(never.detail, /never ran/);
        assert.match(never.fix, /404 Unknown client_id/);
        kube.put(
            "/api/v1/namespaces/nvcf/secrets/sh.helm.release.v1.api.v1",
            helmReleaseSecret("api", 1, [{ name: "nvcf-api-account-bootstrap", last_run: { phase: "Failed" } }]),
        );
        kube.put(
            "/api/v1/namespaces/nvcf/secrets/sh.helm.release.v1.api.v2",
            helmReleaseSecret("api", 2, [{ name: "nvcf-api-account-bootstrap", last_run: { phase: "Succeeded" } }]),
        );
        const r = await checks.accountBootstrap(kube, bootstrap);
        assert.equal(r.ok, true, r.detail);
        assert.match(r.detail, /removed after it finished/);
    });

    test("openbao: unsealed passes; sealed and uninitialised fail; a pod-proxy error fails with the pod to look at", async () => {
        const probe = { namespace: "vault-system", pod: "openbao-server-0", port: 8200, scheme: "http" as const };
        const path = "GET /api/v1/namespaces/vault-system/pods/openbao-server-0:8200/proxy/v1/sys/seal-status";
        const kube = new FakeKube();
        const answer = (status: number, body: unknown) => kube.answers.set(path, { status, body, text: JSON.stringify(body) });
        answer(200, sealStatusAnswer({ sealed: false }));
        assert.equal((await checks.openbao(kube, probe)).ok, true);
        answer(200, sealStatusAnswer({ sealed: true }));
        assert.match((await checks.openbao(kube, probe)).detail, /sealed/);
        answer(200, sealStatusAnswer({ initialized: false, sealed: true }));
        assert.match((await checks.openbao(kube, probe)).detail, /not initialised/);
        answer(503, { kind: "Status", message: "no endpoints available" });
        const r = await checks.openbao(kube, probe);
        assert.equal(r.ok, false);
        assert.match(r.fix, /kubectl -n vault-system get pod openbao-server-0/);
    });

    test("routes: every HTTPRoute Accepted passes; a refused one fails naming it and the reason; none at all fails", async () => {
        const kube = new FakeKube();
        assert.match((await checks.routes(kube, ["envoy-gateway"])).detail, /no HTTPRoute/);
        const base = "/apis/gateway.networking.k8s.io/v1/namespaces/envoy-gateway/httproutes";
        kube.put(`${base}/api`, {
            metadata: { name: "api" },
            status: { parents: [{ parentRef: { name: "gw" }, conditions: [{ type: "Accepted", status: "True" }] }] },
        });
        assert.equal((await checks.routes(kube, ["envoy-gateway"])).ok, true);
        kube.put(`${base}/sis`, {
            metadata: { name: "sis" },
            status: {
                parents: [
                    { parentRef: { name: "gw" }, conditions: [{ type: "Accepted", status: "False", reason: "NotAllowedByListeners" }] },
                ],
            },
        });
        const r = await checks.routes(kube, ["envoy-gateway"]);
        assert.equal(r.ok, false);
        assert.match(r.detail, /envoy-gateway\/sis \(gw: NotAllowedByListeners\)/);
        assert.match(r.fix, /describe httproute sis/);
    });

    test("workloads: ready Deployments and StatefulSets pass; one short of replicas fails with the describe command", async () => {
        const kube = new FakeKube();
        kube.put("/apis/apps/v1/namespaces/nvcf/deployments/api", {
            metadata: { name: "api", generation: 2 },
            spec: { replicas: 2 },
            status: { readyReplicas: 2, observedGeneration: 2 },
        });
        assert.equal((await checks.workloads(kube, ["nvcf", "vault-system"])).ok, true);
        kube.put("/apis/apps/v1/namespaces/vault-system/statefulsets/openbao-server", {
            metadata: { name: "openbao-server", generation: 1 },
            spec: { replicas: 3 },
            status: { readyReplicas: 1, observedGeneration: 1 },
        });
        const r = await checks.workloads(kube, ["nvcf", "vault-system"]);
        assert.equal(r.ok, false);
        assert.match(r.detail, /statefulset vault-system\/openbao-server \(1\/3 ready\)/);
        assert.equal(r.fix, "kubectl -n vault-system describe statefulset openbao-server (and its pods' events)");
    });

    test("nvcfbackend: Healthy (as NVCA writes it) with Ready agent pods passes; absent, Unhealthy, Unknown, or no agent fails", async () => {
        const spec = { name: "gpu-1", namespace: "nvca-operator", agentNamespace: "nvca-system" };
        const kube = new FakeKube();
        let r = await checks.nvcfBackend(kube, spec);
        assert.deepEqual(
            r.map((x) => x.ok),
            [false, false],
        );
        assert.match(r[0].detail, /does not exist/);
        assert.match(r[1].detail, /agent is not running/);
        const path = nvcfBackendPath("nvca-operator", "gpu-1");
        assert.equal(path, "/apis/nvcf.nvidia.io/v1/namespaces/nvca-operator/nvcfbackends/gpu-1");
        kube.put(path, { status: { agentStatus: AGENT_STATUS.unhealthy } });
        kube.put("/api/v1/namespaces/nvca-system/pods/nvca-0", {
            metadata: { name: "nvca-0" },
            status: { phase: "Running", conditions: [{ type: "Ready", status: "False" }] },
        });
        r = await checks.nvcfBackend(kube, spec);
        assert.match(r[0].detail, /reports "Unhealthy"/);
        assert.match(r[1].detail, /not Ready: nvca-system\/nvca-0/);
        kube.put(path, { status: { agentStatus: AGENT_STATUS.unknown } });
        assert.match((await checks.nvcfBackend(kube, spec))[0].detail, /reports "Unknown"/);
        kube.put(path, { status: {} });
        assert.match((await checks.nvcfBackend(kube, spec))[0].detail, /reports no agent status/);
        // NVCA's AgentStatusHealthy is "Healthy" (nvcfbackend_types.go): the value every real cluster reports.
        kube.put(path, { status: { agentStatus: "Healthy" } });
        kube.put("/api/v1/namespaces/nvca-system/pods/nvca-0", {
            metadata: { name: "nvca-0" },
            status: { phase: "Running", conditions: [{ type: "Ready", status: "True" }] },
        });
        assert.ok((await checks.nvcfBackend(kube, spec)).every((x) => x.ok));
        // A finished pod (a completed Job's, Succeeded or Failed) is skipped, as nvcf-cli does.
        kube.put("/api/v1/namespaces/nvca-operator/pods/nvca-cleanup-x1", {
            metadata: { name: "nvca-cleanup-x1" },
            status: { phase: "Failed", conditions: [{ type: "Ready", status: "False" }] },
        });
        assert.ok((await checks.nvcfBackend(kube, spec)).every((x) => x.ok));
    });

    test("nvcfbackend: the agent status is compared without case, as nvcf-cli does; a status NVCA may add later is not healthy", async () => {
        const spec = { name: "gpu-1", namespace: "nvca-operator", agentNamespace: "nvca-system" };
        const path = nvcfBackendPath("nvca-operator", "gpu-1");
        const pod = { metadata: { name: "nvca-0" }, status: { phase: "Running", conditions: [{ type: "Ready", status: "True" }] } };
        // Stored beside the conformance check: these answers are what a newer or differently cased NVCA could write.
        const kube = new FakeKube();
        kube.objects.set("/api/v1/namespaces/nvca-system/pods/nvca-0", pod);
        for (const [value, healthy] of [
            ["healthy", true],
            ["HEALTHY", true],
            ["Degraded", false],
            [42, false],
        ] as const) {
            kube.objects.set(path, { status: { agentStatus: value } });
            assert.equal((await checks.nvcfBackend(kube, spec))[0].ok, healthy, String(value));
        }
    });

    test("a fake refuses an NVCFBackend status or a Helm record value that NVCA's or Helm's source does not define", () => {
        const path = nvcfBackendPath("nvca-operator", "gpu-1");
        assert.throws(
            () => conform(path, { status: { agentStatus: "healthy" } }),
            /status\.agentStatus "healthy", which is not in docs\/contracts\.md/,
        );
        assert.doesNotThrow(() => conform(path, { status: { agentStatus: AGENT_STATUS.healthy } }));
        const secret = "/api/v1/namespaces/nvcf/secrets/sh.helm.release.v1.api.v1";
        assert.throws(
            () => conform(secret, { type: "helm.sh/release.v1", metadata: { labels: { status: "pending" } } }),
            /label status "pending"/,
        );
        assert.throws(() => conform(secret, { type: "helm.sh/release", metadata: { labels: { status: "deployed" } } }), /Secret type/);
    });
});

describe("the checks as a resource", () => {
    const inputs = (kind: "preflight" | "health", extra: Partial<ClusterChecksInputs> = {}): ClusterChecksInputs => ({
        kind,
        cluster: "control plane",
        reach: { kubeconfigSource: "control-plane" },
        ...(kind === "preflight"
            ? { preflight: { kubernetesVersion: true, clusterAdmin: true, storageClass: { name: "" } } }
            : { health: { workloads: { namespaces: ["nvcf"] } } }),
        timeoutSeconds: 1,
        pollSeconds: 1,
        ...extra,
    });

    test("a failing preflight fails create with one line per failure and its fix, naming the skip switch", async () => {
        const provider = new ClusterChecksProvider({ kube: new FakeKube() });
        await assert.rejects(provider.create(inputs("preflight")), (err: Error) => {
            assert.match(err.message, /^preflight of the control plane failed, so no release there was touched:/);
            assert.match(
                err.message,
                /control plane: storage-class: no StorageClass is marked default and there is none\. Fix: mark one default/,
            );
            assert.match(err.message, /checks\.preflight\.<check>: false/);
            return true;
        });
    });

    test("diff re-checks: passing is no change, a failure is an update; changed inputs are an update", async () => {
        const kube = new FakeKube().put("/apis/storage.k8s.io/v1/storageclasses/std", {
            metadata: { name: "std", annotations: { "storageclass.kubernetes.io/is-default-class": "true" } },
        });
        const provider = new ClusterChecksProvider({ kube });
        const created = { outs: (await provider.create(inputs("preflight"))).outs! };
        assert.ok(created.outs.results.every((r) => r.ok));
        assert.deepEqual(await provider.diff("id", created.outs, inputs("preflight")), { changes: false });
        // As the engine sends them: with `__provider`, which in a state written before providers
        // were referenced is the provider's whole code, the unknown-value sentinel's text among it;
        // only a declared input that is unknown counts.
        const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";
        const withSource = { ...inputs("preflight"), __provider: `exports.handler = ... "${UNKNOWN}" ...` };
        assert.deepEqual(await provider.diff("id", { ...created.outs, __provider: withSource.__provider } as never, withSource), {
            changes: false,
        });
        assert.equal((await provider.diff("id", created.outs, { ...inputs("preflight"), cluster: UNKNOWN })).changes, true);
        kube.allowed = false;
        assert.equal((await provider.diff("id", created.outs, inputs("preflight"))).changes, true);
        kube.allowed = true;
        assert.equal((await provider.diff("id", created.outs, inputs("preflight", { timeoutSeconds: 5 }))).changes, true);
    });

    test("the health gate waits out its timeout, then fails naming the component and the command to inspect it", async () => {
        const kube = new FakeKube().put("/apis/apps/v1/namespaces/nvcf/deployments/api", {
            metadata: { name: "api" },
            spec: { replicas: 1 },
            status: {},
        });
        const provider = new ClusterChecksProvider({ kube });
        const t0 = Date.now();
        // Fractions of a second: the same loop at any length, and the suite waits it out.
        await assert.rejects(
            provider.create(inputs("health", { timeoutSeconds: 0.3, pollSeconds: 0.1 })),
            /health gate of the control plane still fails after 0\.3 s:\ncontrol plane: workloads: not ready: deployment nvcf\/api \(0\/1 ready\)\. Fix: kubectl -n nvcf describe deployment api/,
        );
        assert.ok(Date.now() - t0 < 5000);
        kube.put("/apis/apps/v1/namespaces/nvcf/deployments/api", {
            metadata: { name: "api" },
            spec: { replicas: 1 },
            status: { readyReplicas: 1 },
        });
        assert.ok((await provider.create(inputs("health"))).outs!.results.every((r) => r.ok));
    });
});

describe("NVCA teardown", () => {
    const props = (force = false) => ({
        clusterName: "gpu-1",
        reach: { kubeconfigSource: "control-plane" as const },
        crds: ["miniservices.nvca.nvcf.nvidia.io"],
        namespaces: ["nvca-modelcache-init"],
        timeoutSeconds: 0,
        forceFinalizers: force,
    });

    test("deletes the CRDs and namespaces; gone is done, absent is fine", async () => {
        const kube = new FakeKube().put(CRD("miniservices.nvca.nvcf.nvidia.io"), {}).put("/api/v1/namespaces/nvca-modelcache-init", {});
        await teardown(kube, props(), 1);
        assert.ok(kube.calls.includes(`DELETE ${CRD("miniservices.nvca.nvcf.nvidia.io")}`));
        assert.ok(kube.calls.includes("DELETE /api/v1/namespaces/nvca-modelcache-init"));
        await teardown(new FakeKube(), props(), 1);
    });

    test("a namespace stuck Terminating is reported with what holds it, and nothing is forced by default", async () => {
        const stuck = {
            metadata: { name: "nvca-modelcache-init", deletionTimestamp: "2026-01-01T00:00:00Z" },
            spec: { finalizers: ["kubernetes"] },
            status: {
                phase: "Terminating",
                conditions: [
                    {
                        type: "NamespaceFinalizersRemaining",
                        status: "True",
                        message:
                            "Some content in the namespace has finalizers remaining: nvca.nvcf.nvidia.io/cleanup in 1 resource instances",
                    },
                ],
            },
        };
        const kube = new FakeKube();
        kube.answers.set("DELETE /api/v1/namespaces/nvca-modelcache-init", { status: 200, body: {}, text: "{}" });
        kube.put("/api/v1/namespaces/nvca-modelcache-init", stuck);
        await assert.rejects(teardown(kube, props(), 1), (err: Error) => {
            assert.match(
                err.message,
                /namespace nvca-modelcache-init \(Some content in the namespace has finalizers remaining: nvca\.nvcf\.nvidia\.io\/cleanup in 1 resource instances\)/,
            );
            assert.match(err.message, /forceFinalizers: true for gpu-1/);
            return true;
        });
        assert.ok(!kube.calls.some((c) => c.includes("/finalize")), "no finalizer cleared without the setting");
        assert.match(
            namespaceHolder({ metadata: { deletionTimestamp: "x" }, spec: { finalizers: ["kubernetes"] } }),
            /finalizers kubernetes remain/,
        );
    });

    test("with forceFinalizers the stuck namespace's pods go at once and its finalizer is cleared", async () => {
        const kube = new FakeKube();
        kube.answers.set("DELETE /api/v1/namespaces/nvca-modelcache-init", { status: 200, body: {}, text: "{}" });
        kube.put("/api/v1/namespaces/nvca-modelcache-init", {
            metadata: { name: "nvca-modelcache-init", deletionTimestamp: "x" },
            spec: { finalizers: ["kubernetes"] },
        });
        kube.put("/api/v1/namespaces/nvca-modelcache-init/pods/p", { metadata: { name: "p" } });
        const original = kube.request.bind(kube);
        kube.request = async (method, path, body) => {
            // The API server completes the deletion once the finalizer is cleared.
            if (method === "PUT" && path.endsWith("/finalize")) kube.objects.delete("/api/v1/namespaces/nvca-modelcache-init");
            return original(method, path, body);
        };
        await teardown(kube, props(true), 1);
        assert.ok(kube.calls.includes("DELETE /api/v1/namespaces/nvca-modelcache-init/pods/p"));
        assert.ok(kube.calls.includes("PUT /api/v1/namespaces/nvca-modelcache-init/finalize"));
    });
});

describe("changed inputs", () => {
    test("nested inputs compare by content, not by the order the engine gives their keys", async () => {
        const { changedInputs } = await import("../components/providers/kit");
        assert.deepEqual(changedInputs({ reach: { b: 1, a: [{ y: 1, x: 2 }] } }, { reach: { a: [{ x: 2, y: 1 }], b: 1 } }), []);
        assert.deepEqual(changedInputs({ reach: { a: 1 } }, { reach: { a: 2 } }), ["reach"]);
    });
});
