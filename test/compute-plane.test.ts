import assert from "node:assert/strict";
import { before, describe, test } from "node:test";
import { devConfig, ProgramRun, RecordedResource, release, runProgram, runProgramExpectingError, withConfig } from "./support/harness";
import { runDev } from "./support/runs";

const KUBECONFIG_B = "apiVersion: v1\nkind: Config\nclusters: []\n# kubeconfig-of-gpu-b\n";
const PLANES = [
    { clusterName: "gpu-a", cluster: { sameAsControlPlane: true }, region: "US-East-1", ncaId: "nca-1" },
    { clusterName: "gpu-b", cluster: { context: "gpu-b-admin" }, ncaId: "nca-1", featureGates: ["-BYOObservability", "Custom"] },
];

async function runWithPlanes(planes: unknown[] = PLANES, extra: Record<string, unknown> = {}): Promise<ProgramRun> {
    const { config, secretKeys } = devConfig();
    const kubeconfigs = "nvcf-self-managed:computePlaneKubeconfigs";
    return runProgram(
        withConfig(config, {
            "nvcf-self-managed:computePlanes": planes,
            [kubeconfigs]: JSON.stringify({ "gpu-b": KUBECONFIG_B }),
            ...extra,
        }),
        [...secretKeys, kubeconfigs],
    );
}

const ofPlane = (run: ProgramRun, plane: string) =>
    run.resources.filter((r) => r.urn.includes(`::compute-plane-${plane}`) || r.name.startsWith(`compute-plane-${plane}`));
const byName = (run: ProgramRun, name: string) => run.resources.find((r) => r.name === name)!;
const dependsOn = (a: RecordedResource, b: RecordedResource) => a.dependencies.includes(b.urn);
const nvca = (run: ProgramRun, plane: string) => byName(run, `compute-plane-${plane}-nvca-operator`);

let run: ProgramRun;
before(async () => {
    run = await runWithPlanes();
});

describe("compute planes: one per GPU cluster in stack config", () => {
    test("zero compute planes is valid: the dev stack declares none", async () => {
        const dev = await runDev();
        assert.equal(dev.resources.filter((r) => r.type === "nvcf:compute-plane:ComputePlane").length, 0);
        assert.deepEqual(dev.outputs.computePlanes, {});
    });

    test("each compute plane is a ComputePlane component with its own explicit provider", () => {
        for (const plane of ["gpu-a", "gpu-b"]) {
            assert.ok(run.resources.some((r) => r.type === "nvcf:compute-plane:ComputePlane" && r.name === `compute-plane-${plane}`));
            const k8s = ofPlane(run, plane).filter((r) => r.custom && r.type.startsWith("kubernetes:"));
            assert.ok(k8s.length >= 8, `${plane} has its Kubernetes resources`);
            for (const r of k8s)
                assert.match(r.provider, new RegExp(`pulumi:providers:kubernetes::compute-plane-${plane}-provider::`), r.name);
        }
    });

    test("the providers: the control plane's cluster for gpu-a, gpu-b's own kubeconfig (secret) and context", () => {
        const a = byName(run, "compute-plane-gpu-a-provider");
        assert.equal(a.inputs.clusterIdentifier, "dev");
        assert.equal(a.inputs.kubeconfig, undefined);
        const b = byName(run, "compute-plane-gpu-b-provider");
        assert.equal(b.inputs.context, "gpu-b-admin");
        assert.equal(b.inputs.clusterIdentifier, "gpu-b");
        assert.equal(b.inputs.kubeconfig, KUBECONFIG_B);
        assert.ok(JSON.stringify(b.rawInputs.kubeconfig).includes("4dabf18193072939515e22adb298388d"), "the kubeconfig stays a secret");
    });

    test("namespaces nvca-operator, nvca-system and nvcf-backend, each with the pull secret", () => {
        const namespaces = ofPlane(run, "gpu-b").filter((r) => r.type === "kubernetes:core/v1:Namespace");
        assert.deepEqual(namespaces.map((n) => (n.inputs.metadata as { name: string }).name).sort(), [
            "nvca-operator",
            "nvca-system",
            "nvcf-backend",
        ]);
        const secrets = ofPlane(run, "gpu-b").filter((r) => r.type === "kubernetes:core/v1:Secret");
        assert.deepEqual(secrets.map((s) => (s.inputs.metadata as { namespace: string }).namespace).sort(), [
            "nvca-operator",
            "nvca-system",
            "nvcf-backend",
        ]);
        for (const s of secrets) {
            assert.equal(s.inputs.type, "kubernetes.io/dockerconfigjson");
            assert.equal((s.inputs.metadata as { name: string }).name, "nvcr-pull-secret");
        }
    });

    test("the node-inotify-tuner DaemonSet exactly as the runbook specifies", () => {
        const ds = ofPlane(run, "gpu-a").find((r) => r.type === "kubernetes:apps/v1:DaemonSet")!;
        const meta = ds.inputs.metadata as { name: string; namespace: string; annotations?: unknown };
        assert.equal(meta.name, "node-inotify-tuner");
        assert.equal(meta.namespace, "kube-system");
        assert.equal(meta.annotations, undefined, "awaited by default");
        const spec = (ds.inputs.spec as { template: { spec: Record<string, any> } }).template.spec;
        assert.equal(spec.hostPID, true);
        assert.deepEqual(spec.tolerations, [{ operator: "Exists" }]);
        assert.equal(spec.priorityClassName, "system-node-critical");
        assert.equal(spec.terminationGracePeriodSeconds, 1);
        const init = spec.initContainers[0];
        assert.equal(init.image, "busybox:1.36");
        assert.deepEqual(init.securityContext, { privileged: true });
        const script: string = init.command[2];
        assert.match(script, /echo 'fs\.inotify\.max_user_instances=8192'/);
        assert.match(script, /echo 'fs\.inotify\.max_user_watches=524288'/);
        assert.match(script, /> \/host\/etc\/sysctl\.d\/99-inotify\.conf/);
        assert.match(script, /nsenter -t 1 -m -u -i -n -p -- sysctl -w fs\.inotify\.max_user_watches=524288/);
        assert.deepEqual(spec.volumes, [{ name: "host", hostPath: { path: "/" } }]);
        assert.equal(spec.containers[0].image, "registry.k8s.io/pause:3.9");
        assert.deepEqual(spec.containers[0].resources, { requests: { cpu: "1m", memory: "1Mi" }, limits: { cpu: "10m", memory: "16Mi" } });
    });

    test("the SMB CSI driver: release csi-driver-smb v1.17.0 in kube-system, no values", () => {
        const smb = byName(run, "compute-plane-gpu-a-smb-csi-driver-release");
        assert.equal(smb.inputs.name, "csi-driver-smb");
        assert.equal(smb.inputs.namespace, "kube-system");
        assert.equal(smb.inputs.version, "v1.17.0");
        assert.equal(smb.inputs.chart, "csi-driver-smb");
        assert.deepEqual(smb.inputs.repositoryOpts, {
            repo: "https://raw.githubusercontent.com/kubernetes-csi/csi-driver-smb/master/charts",
        });
        assert.deepEqual(smb.inputs.values, {});
    });

    test("the registration's inputs: name, NCA ID, lower-cased region, ICMS under the domain, no secret", () => {
        const reg = byName(run, "compute-plane-gpu-a-registration");
        assert.equal(reg.type, "pulumi-nodejs:dynamic/nvcf:ClusterRegistration");
        const { __provider, ...inputs } = reg.inputs;
        assert.deepEqual(inputs, {
            clusterName: "gpu-a",
            ncaId: "nca-1",
            region: "us-east-1",
            cloudProvider: "ON-PREM",
            icmsUrl: "http://sis.nvcf.test",
            apiKeysUrl: "http://api-keys.nvcf.test",
            kubeconfigSource: "control-plane",
            timeoutSeconds: 30,
            retries: 3,
        });
        assert.equal(byName(run, "compute-plane-gpu-b-registration").inputs.kubeconfigSource, "compute-plane");
        assert.equal(byName(run, "compute-plane-gpu-b-registration").inputs.kubeContext, "gpu-b-admin");
        const serialized = String(__provider);
        assert.match(
            serialized,
            /source: "components\/providers\/cluster-registration\.ts#ClusterRegistrationProvider sha256:[0-9a-f]{64}"/,
        );
        for (const secret of ["nvapi-test-key", "kubeconfig-of-gpu-b"])
            assert.ok(!serialized.includes(secret), `no ${secret} in the provider`);
    });

    test("nvca-operator values: registration IDs, ncaID, selfManaged.region, no generated pull secret", () => {
        const values = nvca(run, "gpu-a").inputs.values as Record<string, any>;
        assert.equal(values.clusterID, "cluster-id-of-gpu-a");
        assert.equal(values.clusterGroupID, "group-id-of-gpu-a");
        assert.equal(values.ncaID, "nca-1");
        assert.equal(values.ncaId, undefined, "the dead key is not set");
        assert.equal(values.clusterName, "gpu-a");
        assert.equal(values.generateImagePullSecret, false);
        assert.deepEqual(values.ngcConfig, { clusterSource: "self-managed" });
        assert.equal(values.selfManaged.region, "us-east-1");
        assert.equal(values.selfManaged.identitySource, "psat");
        assert.deepEqual(values.image, { repository: "nvcr.io/nvidia/nvcf/nvca-operator", tag: "3.2.7", pullPolicy: "IfNotPresent" });
        assert.deepEqual(values.nvcaImage, { repositoryOverride: "nvcr.io/nvidia/nvcf/nvca" });
        assert.deepEqual(values.imagePullSecrets, [{ name: "nvcr-pull-secret" }]);
    });

    test("endpoints: in-cluster Services on the control plane's cluster, the Gateway's hostnames elsewhere", () => {
        const a = (nvca(run, "gpu-a").inputs.values as Record<string, any>).selfManaged;
        assert.equal(a.icmsServiceURL, "http://api.sis.svc.cluster.local:8080");
        assert.equal(a.revalServiceURL, "http://reval.nvcf.svc.cluster.local:8080");
        assert.equal(a.natsURL, "nats://nats.nats-system.svc.cluster.local:4222");
        const b = (nvca(run, "gpu-b").inputs.values as Record<string, any>).selfManaged;
        assert.equal(b.icmsServiceURL, "http://sis.nvcf.test");
        assert.equal(b.revalServiceURL, "http://reval.nvcf.test");
        assert.equal(b.natsURL, "nats://nats.nvcf.test:4222");
    });

    test("feature gates: the bundle's defaults, user gates kept, -Gate turns a default off", () => {
        const a = (nvca(run, "gpu-a").inputs.values as Record<string, any>).selfManaged.featureGateValues as string[];
        assert.deepEqual(a, [
            "DynamicGPUDiscovery",
            "InfraResourceOverhead",
            "EnforceHelmFunctionResourceLimits",
            "EnforceContainerFunctionResourceLimits",
            "EnforceHelmTaskResourceLimits",
            "EnforceContainerTaskResourceLimits",
            "BYOObservability",
        ]);
        const b = (nvca(run, "gpu-b").inputs.values as Record<string, any>).selfManaged.featureGateValues as string[];
        assert.deepEqual(b.slice(0, 2), ["-BYOObservability", "Custom"]);
        assert.ok(!b.includes("BYOObservability"));
        assert.ok(!b.includes("KAIScheduler"));
    });

    test("nvca-operator: release in nvca-operator, helm-nvca-operator 1.21.3, timeout above the 600 s cleanup", () => {
        const op = nvca(run, "gpu-a");
        assert.equal(op.inputs.name, "nvca-operator");
        assert.equal(op.inputs.namespace, "nvca-operator");
        assert.equal(op.inputs.chart, "oci://nvcr.io/nvidia/nvcf/helm-nvca-operator");
        assert.equal(op.inputs.version, "1.21.3");
        assert.ok((op.inputs.timeout as number) > 600);
    });
});

describe("install and destroy order across the planes", () => {
    test("nvca-operator depends on the registration, the SMB CSI driver, the tuner, its namespaces and pull secrets", () => {
        for (const plane of ["gpu-a", "gpu-b"]) {
            const op = nvca(run, plane);
            const mine = ofPlane(run, plane);
            assert.ok(dependsOn(op, byName(run, `compute-plane-${plane}-registration`)), "registration");
            assert.ok(dependsOn(op, byName(run, `compute-plane-${plane}-smb-csi-driver-release`)), "SMB CSI driver");
            assert.ok(
                dependsOn(
                    op,
                    mine.find((r) => r.type === "kubernetes:apps/v1:DaemonSet")!,
                ),
                "inotify tuner",
            );
            for (const r of mine.filter((r) => r.type === "kubernetes:core/v1:Namespace" || r.type === "kubernetes:core/v1:Secret")) {
                assert.ok(dependsOn(op, r), r.name);
            }
        }
    });

    test("registration waits for ICMS's path of the control plane, not all of it; the operator for the registration", () => {
        const cp = (name: string) => byName(run, `control-plane-${name}`);
        const path = ["sis", "admin-issuer-proxy", "api-keys", "ingress", "openbao-rollout"];
        const cpSteps = run.resources.filter(
            (r) => r.custom && r.name.startsWith("control-plane-") && r.type !== "pulumi:providers:kubernetes",
        );
        for (const plane of ["gpu-a", "gpu-b"]) {
            const registration = byName(run, `compute-plane-${plane}-registration`);
            const operator = byName(run, `compute-plane-${plane}-nvca-operator`);
            // Destroy deregisters before ICMS and the token's issuer go.
            for (const name of path) assert.ok(dependsOn(registration, cp(name)), `registration after ${name}`);
            for (const other of cpSteps.filter((r) => !path.map((n) => `control-plane-${n}`).includes(r.name)))
                assert.ok(!dependsOn(registration, other), `registration not after ${other.name}`);
            assert.ok(dependsOn(operator, registration));
            for (const other of cpSteps) assert.ok(!dependsOn(operator, other), `operator not after ${other.name}`);
        }
        // The node prerequisites do not wait for the control plane: they install in parallel.
        assert.ok(!dependsOn(byName(run, "compute-plane-gpu-a-smb-csi-driver-release"), release(run, "api")));
    });

    test("the planes are independent of each other", () => {
        for (const r of ofPlane(run, "gpu-a")) {
            for (const other of ofPlane(run, "gpu-b")) assert.ok(!dependsOn(r, other), `${r.name} / ${other.name}`);
        }
    });

    test("stack outputs per compute plane: name, cluster ID, cluster group ID, operator status", () => {
        assert.deepEqual(run.outputs.computePlanes, {
            "gpu-a": {
                clusterName: "gpu-a",
                clusterId: "cluster-id-of-gpu-a",
                clusterGroupId: "group-id-of-gpu-a",
                operatorStatus: "deployed",
            },
            "gpu-b": {
                clusterName: "gpu-b",
                clusterId: "cluster-id-of-gpu-b",
                clusterGroupId: "group-id-of-gpu-b",
                operatorStatus: "deployed",
            },
        });
    });
});

describe("compute-plane settings", () => {
    test("mirrors: image and chart overrides, SMB chart from an OCI mirror, tuner images, host overrides, skipAwait", async () => {
        const planes = [
            {
                clusterName: "gpu-m",
                cluster: { sameAsControlPlane: true, skipAwait: true },
                image: { registry: "registry.example.com", repository: "nvcf" },
                helmSources: { registry: "registry.example.com", repository: "charts" },
                smbCsiDriver: { source: "oci://registry.example.com/charts/csi-driver-smb" },
                inotifyTuner: { initImage: "registry.example.com/busybox:1.36", pauseImage: "registry.example.com/pause:3.9" },
                selfManaged: { icmsServiceURL: "http://10.0.0.5", icmsServiceHostHeaderOverride: "sis.nvcf.test" },
                registration: { icmsURL: "http://10.0.0.5", icmsHostHeader: "sis.nvcf.test" },
                kaiSchedulerInstalled: true,
            },
        ];
        const r = await runWithPlanes(planes);
        const op = nvca(r, "gpu-m");
        assert.equal(op.inputs.chart, "oci://registry.example.com/charts/helm-nvca-operator");
        assert.equal(op.inputs.skipAwait, true);
        const values = op.inputs.values as Record<string, any>;
        assert.equal(values.image.repository, "registry.example.com/nvcf/nvca-operator");
        assert.equal(values.selfManaged.icmsServiceHostHeaderOverride, "sis.nvcf.test");
        assert.ok((values.selfManaged.featureGateValues as string[]).includes("KAIScheduler"));
        assert.equal(
            byName(r, "compute-plane-gpu-m-smb-csi-driver-release").inputs.chart,
            "oci://registry.example.com/charts/csi-driver-smb",
        );
        const ds = ofPlane(r, "gpu-m").find((x) => x.type === "kubernetes:apps/v1:DaemonSet")!;
        assert.deepEqual((ds.inputs.metadata as { annotations: unknown }).annotations, { "pulumi.com/skipAwait": "true" });
        const reg = byName(r, "compute-plane-gpu-m-registration");
        assert.equal(reg.inputs.icmsUrl, "http://10.0.0.5");
        assert.equal(reg.inputs.icmsHostHeader, "sis.nvcf.test");
    });
});

describe("bad compute-plane settings stop the program before any resource", () => {
    const cases: [string, unknown[], RegExp, Record<string, unknown>?][] = [
        [
            "a name over 32 characters (ICMS answers 412)",
            [{ clusterName: "a".repeat(33), cluster: { sameAsControlPlane: true } }],
            /computePlanes\[0\]\.clusterName: ICMS refuses cluster names longer than 32 characters/,
        ],
        [
            "a name that is not RFC 1123",
            [{ clusterName: "GPU_A", cluster: { sameAsControlPlane: true } }],
            /computePlanes\[0\]\.clusterName: must be an RFC 1123 name/,
        ],
        [
            "two planes with one name",
            [
                { clusterName: "gpu", cluster: { sameAsControlPlane: true } },
                { clusterName: "gpu", cluster: { context: "x" } },
            ],
            /computePlanes\[1\]\.clusterName: the cluster name is already used by computePlanes\[0\]/,
        ],
        [
            "no way to reach the cluster",
            [{ clusterName: "gpu-x" }],
            /computePlanes\[0\]\.cluster: says nothing about how to reach the GPU cluster gpu-x/,
        ],
        [
            "KAIScheduler without the KAI scheduler",
            [{ clusterName: "gpu", cluster: { sameAsControlPlane: true }, featureGates: ["KAIScheduler"] }],
            /computePlanes\[0\]\.featureGates: the KAIScheduler gate keeps NVCA unhealthy/,
        ],
        [
            "a reserved pull secret name",
            [{ clusterName: "gpu", cluster: { sameAsControlPlane: true }, imagePullSecrets: [{ name: "ngc-api-key" }] }],
            /computePlanes\[0\]\.imagePullSecrets: the NVCA mirror reserves this pull secret name/,
        ],
        [
            "no admin token without the admin issuer proxy",
            [{ clusterName: "gpu", cluster: { sameAsControlPlane: true } }],
            /nvcf-self-managed:nvcfAdminToken: is required to register GPU clusters/,
            { "nvcf-self-managed:controlPlane": { adminIssuerProxy: { enabled: false } } },
        ],
        [
            "an unknown key in a plane",
            [{ clusterName: "gpu", cluster: { sameAsControlPlane: true }, regoin: "x" }],
            /computePlanes\[0\]\.regoin: unknown key/,
        ],
    ];
    for (const [what, planes, message, extra] of cases) {
        test(what, async () => {
            const { config, secretKeys } = devConfig();
            const { error, resources } = await runProgramExpectingError(
                withConfig(config, { "nvcf-self-managed:computePlanes": planes, ...(extra ?? {}) }),
                secretKeys,
            );
            assert.match(error.message, message);
            assert.deepEqual(resources, []);
        });
    }
});
