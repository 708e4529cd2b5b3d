import assert from "node:assert/strict";
import { before, describe, test } from "node:test";
import { devConfig, ProgramRun, RecordedResource, runProgram, withConfig } from "./support/harness";
import { runDev } from "./support/runs";

const PLANE = { clusterName: "gpu-a", cluster: { sameAsControlPlane: true }, teardown: { forceFinalizers: true, timeoutSeconds: 60 } };

async function runWith(extra: Record<string, unknown>): Promise<ProgramRun> {
    const { config, secretKeys } = devConfig();
    return runProgram(withConfig(config, { "nvcf-self-managed:computePlanes": [PLANE], ...extra }), secretKeys);
}

const byName = (run: ProgramRun, name: string) => run.resources.find((r) => r.name === name);
const dependsOn = (a: RecordedResource, b: RecordedResource) => a.dependencies.includes(b.urn);
const releases = (run: ProgramRun) => run.resources.filter((r) => r.type === "kubernetes:helm.sh/v3:Release");

let dev: ProgramRun;
let planes: ProgramRun;
before(async () => {
    dev = await runDev();
    planes = await runWith({});
});

describe("preflight and the health gate in the program", () => {
    test("the dev stack: every control-plane release depends on its preflight; its health gate on every release", () => {
        const preflight = byName(dev, "control-plane-preflight")!;
        const gate = byName(dev, "control-plane-health-gate")!;
        assert.equal(preflight.type, "pulumi-nodejs:dynamic/nvcf:Preflight");
        assert.equal(gate.type, "pulumi-nodejs:dynamic/nvcf:HealthGate");
        for (const r of releases(dev)) {
            assert.ok(dependsOn(r, preflight), `${r.name} after preflight`);
            assert.ok(dependsOn(gate, r), `the gate after ${r.name}`);
        }
    });

    test("the dev stack's checks: its Gateway's listeners, the default StorageClass, and the gate's components", () => {
        const p = byName(dev, "control-plane-preflight")!.inputs as Record<string, any>;
        assert.deepEqual(p.reach, { kubeconfigSource: "control-plane" }, "where the kubeconfig is, never its text");
        assert.deepEqual(p.preflight, {
            kubernetesVersion: true,
            clusterAdmin: true,
            gatewayApi: {
                gateways: [
                    {
                        namespace: "envoy-gateway",
                        name: "nvcf-gateway",
                        listeners: [
                            { name: "http", port: 80 },
                            { name: "tcp", port: 10081 },
                        ],
                    },
                ],
            },
            storageClass: { name: "" },
        });
        const h = byName(dev, "control-plane-health-gate")!.inputs as Record<string, any>;
        assert.deepEqual(h.health.accountBootstrap, { namespace: "nvcf", job: "nvcf-api-account-bootstrap", release: "api" });
        assert.deepEqual(h.health.openbao, { namespace: "vault-system", pod: "openbao-server-0", port: 8200, scheme: "http" });
        assert.deepEqual(h.health.routes, { namespaces: ["envoy-gateway"] });
        assert.ok(h.health.workloads.namespaces.includes("vault-system"));
        assert.equal(h.timeoutSeconds, 600);
        assert.equal(h.pollSeconds, 5);
    });

    test("a compute plane: its releases and tuner after its own preflight (GPU check), its gate after the operator", () => {
        const preflight = byName(planes, "compute-plane-gpu-a-preflight")!;
        assert.deepEqual((preflight.inputs as any).preflight, { kubernetesVersion: true, clusterAdmin: true, gpu: true });
        assert.deepEqual((preflight.inputs as any).reach, { kubeconfigSource: "control-plane", clusterName: "gpu-a" });
        for (const name of ["compute-plane-gpu-a-nvca-operator", "compute-plane-gpu-a-smb-csi-driver"]) {
            assert.ok(dependsOn(byName(planes, name)!, preflight), `${name} after preflight`);
        }
        const ds = planes.resources.find((r) => r.type === "kubernetes:apps/v1:DaemonSet")!;
        assert.ok(dependsOn(ds, preflight), "the inotify tuner after preflight");
        const gate = byName(planes, "compute-plane-gpu-a-health-gate")!;
        assert.ok(dependsOn(gate, byName(planes, "compute-plane-gpu-a-nvca-operator")!));
        assert.deepEqual((gate.inputs as any).health.nvcfBackend, {
            name: "gpu-a",
            namespace: "nvca-operator",
            agentNamespace: "nvca-system",
        });
    });

    test("each group is skipped by its setting; with both off no check resource is declared", async () => {
        const noGpu = await runWith({
            "nvcf-self-managed:checks": { preflight: { gpu: false, storageClass: false }, healthGate: { computePlanes: false } },
        });
        assert.equal((byName(noGpu, "compute-plane-gpu-a-preflight")!.inputs as any).preflight.gpu, false);
        assert.equal((byName(noGpu, "control-plane-preflight")!.inputs as any).preflight.storageClass, undefined);
        assert.equal(byName(noGpu, "compute-plane-gpu-a-health-gate"), undefined);
        const off = await runWith({ "nvcf-self-managed:checks": { preflight: { enabled: false }, healthGate: { enabled: false } } });
        assert.deepEqual(
            off.resources.filter((r) => /Preflight|HealthGate/.test(r.type)),
            [],
        );
        for (const r of releases(off)) assert.ok(!r.dependencies.some((d) => d.includes("Preflight")), r.name);
    });
});

describe("NVCA teardown in the program", () => {
    test("the operator depends on the teardown, so destroy uninstalls the operator first; the teardown after the namespaces", () => {
        const teardown = byName(planes, "compute-plane-gpu-a-nvca-teardown")!;
        assert.equal(teardown.type, "pulumi-nodejs:dynamic/nvcf:NvcaTeardown");
        assert.ok(dependsOn(byName(planes, "compute-plane-gpu-a-nvca-operator")!, teardown));
        const namespaces = planes.resources.filter(
            (r) => r.type === "kubernetes:core/v1:Namespace" && r.name.startsWith("compute-plane-gpu-a"),
        );
        for (const ns of namespaces) assert.ok(dependsOn(teardown, ns), ns.name);
        assert.deepEqual(
            (teardown.inputs as any).crds,
            ["nvcfbackends.nvcf.nvidia.io", "miniservices.nvca.nvcf.nvidia.io", "storagerequests.nvca.nvcf.nvidia.io"],
            "NVCA_CRDS: NVCA's CRDs as its crd_reconcile.go names them",
        );
        assert.deepEqual(
            (teardown.inputs as any).namespaces,
            ["nvca-system", "nvcf-backend", "nvca-modelcache-init", "nvca-operator"],
            "NVCA_NAMESPACES: NVCA's namespaces as its types.go and modelcache.go name them",
        );
        assert.equal((teardown.inputs as any).forceFinalizers, true);
        assert.equal((teardown.inputs as any).timeoutSeconds, 60);
    });

    test("the topology releases, recorded in nvca-operator, depend on the teardown: destroy uninstalls them before it deletes the namespace", async () => {
        const topology = {
            ...PLANE,
            addons: {
                kaiScheduler: { enabled: true },
                groveOperator: { enabled: true },
                topologyAwareScheduling: { enabled: true, chartsPath: "/srv/nvcf/charts" },
            },
        };
        const { config, secretKeys } = devConfig();
        const run = await runProgram(withConfig(config, { "nvcf-self-managed:computePlanes": [topology] }), secretKeys);
        const teardown = byName(run, "compute-plane-gpu-a-nvca-teardown")!;
        for (const name of ["nvcf-kai-topology", "nvcf-grove-topology"]) {
            const r = byName(run, `compute-plane-gpu-a-${name}`)!;
            assert.equal(r.inputs.namespace, "nvca-operator");
            assert.ok(dependsOn(r, teardown), name);
        }
        // The add-ons in namespaces of their own are not held by it.
        assert.ok(!dependsOn(byName(run, "compute-plane-gpu-a-kai-scheduler")!, teardown));
    });
});
