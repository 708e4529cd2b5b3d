import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { before, describe, test } from "node:test";
import { ADDONS, enabledAddons, topologyValues } from "../components/catalog/compute-plane-addons";
import { chartOf } from "../components/release/declare";
import { needNames } from "../components/release/entry";
import { agentMergeConfig, featureGates } from "../components/catalog/nvca-operator-values";
import { computePlaneSchema, type ComputePlaneConfig } from "../config/model/compute-plane-schema";
import { devConfig, ProgramRun, RecordedResource, runProgram, withConfig } from "./support/harness";
import { findBundleRelease } from "../components/bundle/bundle-releases";

/** The bundle release whose versions the program was written against (and the fixture charts carry). */
const PINNED = findBundleRelease("0.8.0")!.computePlane;

// The compute-plane bundle's GPU scheduling add-ons. Expected values are the bundle's facts for
// its `local` test environment (testdata/environments/local.yaml: every add-on on, pull secret
// nvcr-pull-secret, no node selector or tolerations, a merge config naming Unrestricted and one
// extra type), as its 01-dependencies and 02-nvca helmfiles give them and its golden renders show.

const parsePlane = (extra: Record<string, unknown> = {}): ComputePlaneConfig =>
    computePlaneSchema.parse({ clusterName: "gpu", cluster: { sameAsControlPlane: true }, ...extra });
/** The topology chart ships only inside NVIDIA's bundle: its directory is always named. */
const TOPOLOGY_CHARTS = "/srv/nvcf/deploy/stacks/nvcf-compute-plane/charts";
const ALL_ON = {
    topologyAwareScheduling: { enabled: true, chartsPath: TOPOLOGY_CHARTS },
    kaiScheduler: { enabled: true },
    groveOperator: { enabled: true },
    dynamoOperator: { enabled: true },
};
/** local.yaml's merge config. */
const LOCAL_MERGE_CONFIG = {
    cluster: {
        validationPolicy: {
            name: "Unrestricted",
            allowedExtraKubernetesTypes: [{ group: "foo.com", version: "v1", kind: "FooType", resource: "footypes" }],
        },
    },
};
const DEFAULT_GATES = [
    "DynamicGPUDiscovery",
    "InfraResourceOverhead",
    "EnforceHelmFunctionResourceLimits",
    "EnforceContainerFunctionResourceLimits",
    "EnforceHelmTaskResourceLimits",
    "EnforceContainerTaskResourceLimits",
    "BYOObservability",
];
const t = (group: string, version: string, kind: string, resource: string) => ({ group, kind, resource, version });
const KAI_TYPES = [t("scheduling.run.ai", "v2alpha2", "PodGroup", "podgroups")];
const GROVE_TYPES = [
    t("grove.io", "v1alpha1", "PodCliqueSet", "podcliquesets"),
    t("grove.io", "v1alpha1", "PodClique", "podcliques"),
    t("grove.io", "v1alpha1", "PodCliqueScalingGroup", "podcliquescalinggroups"),
    t("scheduler.grove.io", "v1alpha1", "PodGang", "podgangs"),
];
const DYNAMO_TYPES = [
    t("nvidia.com", "v1alpha1", "DynamoCheckpoint", "dynamocheckpoints"),
    t("nvidia.com", "v1alpha1", "DynamoComponentDeployment", "dynamocomponentdeployments"),
    t("nvidia.com", "v1alpha1", "DynamoGraphDeployment", "dynamographdeployments"),
    t("nvidia.com", "v1alpha1", "DynamoGraphDeploymentRequest", "dynamographdeploymentrequests"),
    t("nvidia.com", "v1alpha1", "DynamoGraphDeploymentScalingAdapter", "dynamographdeploymentscalingadapters"),
    t("nvidia.com", "v1alpha1", "DynamoModel", "dynamomodels"),
    t("nvidia.com", "v1alpha1", "DynamoWorkerMetadata", "dynamoworkermetadatas"),
];
const types = (config: Record<string, any> | undefined) => config?.cluster?.validationPolicy?.allowedExtraKubernetesTypes;

describe("the add-on catalog: the bundle's releases, in its file order", () => {
    test("release, namespace, chart, version (in the pinned bundle release) and needs of each add-on", () => {
        assert.deepEqual(
            ADDONS.map((a) => [a.name, a.namespace(parsePlane({})), a.chart, PINNED.charts[a.name], needNames(a).join(",")]),
            [
                ["kai-scheduler", "kai-scheduler", "kai-scheduler", "v0.16.7", ""],
                ["nvcf-kai-topology", "nvca-operator", "nvcf-cluster-topology", "0.1.0", "kai-scheduler"],
                ["grove-operator", "grove-system", "grove-charts", "v0.1.0-alpha.11", "kai-scheduler"],
                ["nvcf-grove-topology", "nvca-operator", "nvcf-cluster-topology", "0.1.0", "grove-operator,nvcf-kai-topology"],
                ["dynamo-operator", "dynamo-system", "dynamo-platform", "1.2.1", "grove-operator"],
            ],
        );
        // Each release is listed after everything it needs: the catalog order is an install order.
        ADDONS.forEach((a, i) => needNames(a).forEach((n) => assert.ok(ADDONS.findIndex((b) => b.name === n) < i, `${a.name} after ${n}`)));
    });

    test("grove-operator after kai-scheduler and dynamo-operator after grove-operator: reasons read from the charts' renders", () => {
        // Neither chart is in NVIDIA/nvcf; their renders with the bundle's values are (fadc0f81,
        // deploy/stacks/nvcf-compute-plane/testdata/golden/local/01-dependencies.yaml-*). grove-charts: clusterrole.yaml
        // grants create and watch on kai.scheduler topologies, configmap-operator.yaml lists a kai-scheduler profile.
        // dynamo-operator: operator-config.yaml has orchestrators.grove.enabled, manager-rbac.yaml grants create and watch
        // on grove.io podcliquesets; Grove's CRDs come from grove-operator's crd-installer init container.
        const why = (name: string) => ADDONS.find((a) => a.name === name)!.needs.map((n) => `${n.release}: ${n.why}`);
        assert.deepEqual(why("grove-operator"), [
            "kai-scheduler: its operator creates and watches KAI's Topology objects (kai.scheduler, in its ClusterRole) and places its pod gangs through the kai-scheduler profile of its config",
        ]);
        assert.deepEqual(why("dynamo-operator"), [
            "grove-operator: the values turn on its Grove orchestrator: it creates and watches Grove's PodCliqueSets, whose CRDs grove-operator's init container applies when its pod starts",
        ]);
        // The values that make those renders: Grove's CRD installer and Dynamo's Grove orchestrator, not Grove's install.
        const plane = parsePlane({ addons: ALL_ON });
        const values = (name: string) =>
            ADDONS.find((a) => a.name === name)!.values({ plane, imagePullSecrets: [] }) as Record<string, any>;
        assert.deepEqual(values("grove-operator").crdInstaller, { enabled: true });
        assert.deepEqual(values("dynamo-operator").global.grove, { enabled: true, install: false });
        for (const a of ADDONS) for (const n of a.needs) assert.doesNotMatch(n.why, /helmfile/i, `${a.name} needs ${n.release}`);
    });

    test("the end-to-end suite has a fixture chart of each add-on, with its exact chart name and version", () => {
        for (const a of ADDONS) {
            const chart = fs.readFileSync(path.join(__dirname, "e2e", "charts", a.chart, "Chart.yaml"), "utf8");
            assert.match(chart, new RegExp(`^name: ${a.chart}$`, "m"), a.name);
            assert.match(chart, new RegExp(`^version: ${PINNED.charts[a.name].replace(/\./g, "\\.")}$`, "m"), a.name);
        }
    });

    const cases: [string, Record<string, unknown>, string[]][] = [
        ["nothing by default", {}, []],
        ["KAI alone", { addons: { kaiScheduler: { enabled: true } } }, ["kai-scheduler"]],
        [
            "KAI and its topology",
            { addons: { kaiScheduler: { enabled: true }, topologyAwareScheduling: ALL_ON.topologyAwareScheduling } },
            ["kai-scheduler", "nvcf-kai-topology"],
        ],
        [
            "KAI and Grove",
            { addons: { kaiScheduler: { enabled: true }, groveOperator: { enabled: true } } },
            ["kai-scheduler", "grove-operator"],
        ],
        [
            "everything",
            { addons: ALL_ON },
            ["kai-scheduler", "nvcf-kai-topology", "grove-operator", "nvcf-grove-topology", "dynamo-operator"],
        ],
        [
            "the topology for a KAI scheduler installed outside the stack",
            { kaiSchedulerInstalled: true, addons: { topologyAwareScheduling: ALL_ON.topologyAwareScheduling } },
            ["nvcf-kai-topology"],
        ],
        [
            "only declarations of add-ons installed outside",
            { kaiSchedulerInstalled: true, groveOperatorInstalled: true, dynamoOperatorInstalled: true },
            [],
        ],
    ];
    for (const [what, settings, expected] of cases) {
        test(`enabled add-ons: ${what}`, () => {
            assert.deepEqual(
                enabledAddons(parsePlane(settings)).map((a) => a.name),
                expected,
            );
        });
    }
});

describe("NVCA's feature gates and merge config follow the add-ons", () => {
    const cases: [string, Record<string, unknown>, string[], unknown[] | undefined][] = [
        ["no add-on: no gate, no merge config", {}, [], undefined],
        ["KAI: KAIScheduler, PodGroup", { addons: { kaiScheduler: { enabled: true } } }, ["KAIScheduler"], KAI_TYPES],
        ["KAI installed outside: the same", { kaiSchedulerInstalled: true }, ["KAIScheduler"], KAI_TYPES],
        [
            "KAI and Grove: Grove has types but no gate",
            { addons: { kaiScheduler: { enabled: true }, groveOperator: { enabled: true } } },
            ["KAIScheduler"],
            [...KAI_TYPES, ...GROVE_TYPES],
        ],
        ["everything", { addons: ALL_ON }, ["KAIScheduler", "DynamoOperatorSupport"], [...KAI_TYPES, ...GROVE_TYPES, ...DYNAMO_TYPES]],
        ["Dynamo installed outside", { dynamoOperatorInstalled: true }, ["DynamoOperatorSupport"], DYNAMO_TYPES],
    ];
    for (const [what, settings, gates, extra] of cases) {
        test(what, () => {
            const plane = parsePlane(settings);
            assert.deepEqual(featureGates(plane), [...DEFAULT_GATES, ...gates]);
            const config = agentMergeConfig(plane);
            if (extra === undefined) assert.equal(config, undefined);
            else assert.deepEqual(config, { cluster: { validationPolicy: { allowedExtraKubernetesTypes: extra, name: "Default" } } });
        });
    }

    test("a gate turned off stays off, and its add-on's types are still admitted (as in the bundle)", () => {
        const plane = parsePlane({ addons: { kaiScheduler: { enabled: true } }, featureGates: ["-KAIScheduler"] });
        assert.deepEqual(featureGates(plane), ["-KAIScheduler", ...DEFAULT_GATES]);
        assert.deepEqual(types(agentMergeConfig(plane)), KAI_TYPES);
    });

    test("the user's merge config: its name and types kept, a type it lists not repeated, the rest of it untouched", () => {
        const mergeConfig = {
            agent: { logLevel: "debug" },
            cluster: {
                validationPolicy: {
                    name: "Unrestricted",
                    allowedExtraKubernetesTypes: [
                        { group: "scheduling.run.ai", version: "v2alpha2", kind: "PodGroup", resource: "custom" },
                    ],
                },
            },
        };
        const plane = parsePlane({
            addons: { kaiScheduler: { enabled: true }, groveOperator: { enabled: true } },
            agentConfig: { mergeConfig },
        });
        const config = agentMergeConfig(plane)!;
        assert.deepEqual(config.agent, { logLevel: "debug" });
        assert.equal((config.cluster as any).validationPolicy.name, "Unrestricted");
        assert.deepEqual(types(config), [
            { group: "scheduling.run.ai", version: "v2alpha2", kind: "PodGroup", resource: "custom" },
            ...GROVE_TYPES,
        ]);
        assert.equal(mergeConfig.cluster.validationPolicy.allowedExtraKubernetesTypes.length, 1, "the settings are not mutated");
    });

    test("the bundle's local environment: gates and merge config as its golden nvca-operator render", () => {
        const plane = parsePlane({ addons: ALL_ON, agentConfig: { mergeConfig: LOCAL_MERGE_CONFIG } });
        // golden self-managed-nvcfbackend-cm.yaml: capabilities
        assert.deepEqual(featureGates(plane), [...DEFAULT_GATES, "KAIScheduler", "DynamoOperatorSupport"]);
        // golden agent-config-merge-cm.yaml
        assert.deepEqual(agentMergeConfig(plane), {
            cluster: {
                validationPolicy: {
                    name: "Unrestricted",
                    allowedExtraKubernetesTypes: [t("foo.com", "v1", "FooType", "footypes"), ...KAI_TYPES, ...GROVE_TYPES, ...DYNAMO_TYPES],
                },
            },
        });
    });
});

describe("where the add-on charts come from", () => {
    const stack = { chartSources: { registry: "nvcr.io", repository: "nvidia/nvcf" } };
    const entry = (name: string) => ADDONS.find((a) => a.name === name)!;

    test("the bundle's repositories by default, without the stack's chart credentials", () => {
        const plane = parsePlane({ addons: ALL_ON });
        const auth = { chartAuth: { username: "$oauthtoken", password: undefined as never } };
        assert.deepEqual(chartOf(entry("kai-scheduler"), plane, { ...stack, ...auth }), {
            chart: "oci://ghcr.io/kai-scheduler/kai-scheduler/kai-scheduler",
        });
        assert.deepEqual(chartOf(entry("grove-operator"), plane, stack), { chart: "oci://ghcr.io/ai-dynamo/grove/grove-charts" });
        assert.deepEqual(chartOf(entry("dynamo-operator"), plane, stack), {
            chart: "dynamo-platform",
            repositoryOpts: { repo: "https://helm.ngc.nvidia.com/nvidia/ai-dynamo" },
        });
        // The topology chart is in no registry (not the stack's oci:// source): from chartsPath, or a repository it was pushed to.
        assert.deepEqual(chartOf(entry("nvcf-kai-topology"), plane, stack), { chart: `${TOPOLOGY_CHARTS}/nvcf-cluster-topology` });
        const local = parsePlane({ addons: { ...ALL_ON, topologyAwareScheduling: { enabled: true, chartsPath: "/charts/" } } });
        assert.deepEqual(chartOf(entry("nvcf-grove-topology"), local, stack), { chart: "/charts/nvcf-cluster-topology" });
        const pushed = parsePlane({
            addons: { ...ALL_ON, topologyAwareScheduling: { enabled: true, repository: "oci://registry.example.com/nvcf-charts" } },
        });
        assert.deepEqual(chartOf(entry("nvcf-kai-topology"), pushed, stack), {
            chart: "oci://registry.example.com/nvcf-charts/nvcf-cluster-topology",
        });
    });

    test("a local chart directory of the stack holds them all; a repository setting wins", () => {
        const plane = parsePlane({
            addons: {
                ...ALL_ON,
                topologyAwareScheduling: { enabled: true },
                dynamoOperator: { enabled: true, repository: "oci://registry.example.com/mirror/" },
            },
        });
        const dir = { chartSources: { path: "/srv/charts" } };
        assert.deepEqual(chartOf(entry("kai-scheduler"), plane, dir), { chart: "/srv/charts/kai-scheduler" });
        assert.deepEqual(chartOf(entry("nvcf-kai-topology"), plane, dir), { chart: "/srv/charts/nvcf-cluster-topology" });
        assert.deepEqual(chartOf(entry("dynamo-operator"), plane, dir), { chart: "oci://registry.example.com/mirror/dynamo-platform" });
    });

    test("a mirror on the stack's own chart host gets its credentials", () => {
        const password = "p" as never;
        const plane = parsePlane({ addons: { kaiScheduler: { enabled: true, repository: "oci://nvcr.io/my-org/mirror" } } });
        assert.deepEqual(chartOf(entry("kai-scheduler"), plane, { ...stack, chartAuth: { username: "$oauthtoken", password } }), {
            chart: "oci://nvcr.io/my-org/mirror/kai-scheduler",
            repositoryOpts: { username: "$oauthtoken", password },
        });
    });
});

// ---------------------------------------------------------------------------------------------
// The program under mocks: one plane with every add-on on, as the bundle's local environment.

const LOCAL_PLANE = {
    clusterName: "gpu-a",
    cluster: { sameAsControlPlane: true },
    addons: ALL_ON,
    agentConfig: { mergeConfig: LOCAL_MERGE_CONFIG },
};

async function runWithPlanes(planes: unknown[]): Promise<ProgramRun> {
    const { config, secretKeys } = devConfig();
    return runProgram(withConfig(config, { "nvcf-self-managed:computePlanes": planes }), secretKeys);
}

const ADDON_RELEASES = ["kai-scheduler", "nvcf-kai-topology", "grove-operator", "nvcf-grove-topology", "dynamo-operator"];

describe("a compute plane with every add-on on", () => {
    let run: ProgramRun;
    before(async () => {
        run = await runWithPlanes([LOCAL_PLANE]);
    });
    const byName = (name: string) => run.resources.find((r) => r.name === name)!;
    const addon = (release: string) => byName(`compute-plane-gpu-a-${release}`);
    const values = (release: string) => addon(release).inputs.values as Record<string, any>;
    const dependsOn = (a: RecordedResource, b: RecordedResource) => a.dependencies.includes(b.urn);

    test("each add-on is a release of the plane's provider, in its namespace, with the bundle's chart and version", () => {
        const rows = ADDON_RELEASES.map((name) => {
            const r = addon(name);
            assert.equal(r.type, "kubernetes:helm.sh/v3:Release");
            assert.match(r.provider, /pulumi:providers:kubernetes::compute-plane-gpu-a-provider::/);
            assert.equal(r.inputs.createNamespace, false);
            return [r.inputs.name, r.inputs.namespace, r.inputs.chart, r.inputs.version];
        });
        assert.deepEqual(rows, [
            ["kai-scheduler", "kai-scheduler", "oci://ghcr.io/kai-scheduler/kai-scheduler/kai-scheduler", "v0.16.7"],
            ["nvcf-kai-topology", "nvca-operator", `${TOPOLOGY_CHARTS}/nvcf-cluster-topology`, "0.1.0"],
            ["grove-operator", "grove-system", "oci://ghcr.io/ai-dynamo/grove/grove-charts", "v0.1.0-alpha.11"],
            ["nvcf-grove-topology", "nvca-operator", `${TOPOLOGY_CHARTS}/nvcf-cluster-topology`, "0.1.0"],
            ["dynamo-operator", "dynamo-system", "dynamo-platform", "1.2.1"],
        ]);
        assert.deepEqual(addon("dynamo-operator").inputs.repositoryOpts, { repo: "https://helm.ngc.nvidia.com/nvidia/ai-dynamo" });
        assert.equal(addon("kai-scheduler").inputs.repositoryOpts, undefined, "no NGC credentials sent to ghcr.io");
    });

    test("owned namespaces kai-scheduler, grove-system and dynamo-system, each with the pull secret", () => {
        const mine = run.resources.filter((r) => r.name.startsWith("compute-plane-gpu-a"));
        const names = mine
            .filter((r) => r.type === "kubernetes:core/v1:Namespace")
            .map((n) => (n.inputs.metadata as { name: string }).name);
        assert.deepEqual(names.sort(), ["dynamo-system", "grove-system", "kai-scheduler", "nvca-operator", "nvca-system", "nvcf-backend"]);
        const secrets = mine
            .filter((r) => r.type === "kubernetes:core/v1:Secret")
            .map((s) => (s.inputs.metadata as { namespace: string }).namespace);
        assert.deepEqual(secrets.sort(), names.sort());
    });

    test("order: the bundle's needs, each after its namespace and pull secret, NVCA after every add-on", () => {
        const ns = (name: string) => byName(`compute-plane-gpu-a-namespaces-${name}`);
        const secret = (name: string) => byName(`compute-plane-gpu-a-pull-secrets-${name}`);
        for (const entry of ADDONS) {
            const r = addon(entry.name);
            const namespace = entry.namespace(parsePlane({}));
            assert.ok(dependsOn(r, ns(namespace)), `${entry.name} after its namespace`);
            assert.ok(dependsOn(r, secret(namespace)), `${entry.name} after its pull secret`);
            for (const need of needNames(entry)) assert.ok(dependsOn(r, addon(need)), `${entry.name} after ${need}`);
            const others = ADDON_RELEASES.filter((n) => n !== entry.name && !needNames(entry).includes(n));
            for (const other of others) assert.ok(!dependsOn(r, addon(other)), `${entry.name} does not wait for ${other}`);
            assert.ok(dependsOn(byName("compute-plane-gpu-a-nvca-operator"), r), `nvca-operator after ${entry.name}`);
        }
        // The add-ons need nothing of the control plane: they install in parallel with it.
        assert.ok(!addon("kai-scheduler").dependencies.some((d) => d.includes("ControlPlane") || d.includes("::control-plane-")));
    });

    test("KAI scheduler values: the bundle's, with the plane's pull secrets", () => {
        const res = (rc: string, rm: string, lc: string, lm: string) => ({
            resources: { requests: { cpu: rc, memory: rm }, limits: { cpu: lc, memory: lm } },
        });
        const unlimited = { quota: -1, limit: -1, overQuotaWeight: 1 };
        assert.deepEqual(values("kai-scheduler"), {
            global: {
                securityContext: { runAsUser: 10000, runAsNonRoot: true, allowPrivilegeEscalation: false, capabilities: { drop: ["ALL"] } },
                imagePullSecrets: [{ name: "nvcr-pull-secret" }],
            },
            operator: res("50m", "256Mi", "1000m", "1Gi"),
            podgrouper: res("50m", "512Mi", "1000m", "4Gi"),
            podgroupcontroller: res("50m", "256Mi", "1000m", "1Gi"),
            binder: res("50m", "2Gi", "4000m", "4Gi"),
            scheduler: {
                placementStrategy: "binpack",
                plugins: { nodeplacement: { arguments: { gpu: "binpack", cpu: "spread" } } },
                actions: { preempt: { enabled: false }, consolidation: { enabled: false } },
                ...res("500m", "3Gi", "2000m", "6Gi"),
            },
            queuecontroller: res("50m", "256Mi", "1000m", "1Gi"),
            admission: res("50m", "256Mi", "1000m", "1Gi"),
            nodescaleadjuster: res("50m", "256Mi", "1000m", "1Gi"),
            numaPlacementExporter: res("50m", "64Mi", "1000m", "1Gi"),
            defaultQueue: {
                createDefaultQueue: true,
                parentName: "default-parent-queue",
                childName: "default-queue",
                parentResources: { cpu: unlimited, gpu: unlimited, memory: unlimited },
                childResources: { cpu: unlimited, gpu: unlimited, memory: unlimited },
            },
        });
    });

    test("topology values: one Topology, its Grove binding from the second release", () => {
        const topologies = [
            { name: "nvcf-mnnvl-topology", levels: [{ nodeLabel: "nvidia.com/gpu.clique" }, { nodeLabel: "kubernetes.io/hostname" }] },
        ];
        assert.deepEqual(values("nvcf-kai-topology"), { topologies, kaiScheduler: { enabled: true }, groveOperator: { enabled: false } });
        assert.deepEqual(values("nvcf-grove-topology"), { topologies, kaiScheduler: { enabled: false }, groveOperator: { enabled: true } });
    });

    test("Grove values: the bundle's, topology-aware scheduling on", () => {
        assert.deepEqual(values("grove-operator"), {
            replicaCount: 1,
            image: { repository: "ghcr.io/ai-dynamo/grove/grove-operator", tag: "v0.1.0-alpha.11" },
            resources: { limits: { memory: "1Gi" }, requests: { cpu: "50m", memory: "128Mi" } },
            podAnnotations: {},
            config: {
                leaderElection: {
                    enabled: true,
                    leaseDuration: "15s",
                    renewDeadline: "10s",
                    retryPeriod: "2s",
                    resourceName: "grove-operator-leader-election",
                },
                logLevel: "info",
                logFormat: "json",
                controllers: {
                    podCliqueSet: { concurrentSyncs: 3 },
                    podClique: { concurrentSyncs: 3 },
                    podCliqueScalingGroup: { concurrentSyncs: 3 },
                },
                topologyAwareScheduling: { enabled: true },
                server: {
                    webhooks: { port: 9443, certProvisionMode: "auto", secretName: "grove-webhook-server-cert" },
                    healthProbes: { enable: true, port: 9444 },
                    metrics: { port: 9445 },
                },
            },
            webhookServerSecret: { enabled: false },
            crdInstaller: { enabled: true },
        });
    });

    test("Dynamo values: the bundle's, Grove used but not installed, no node placement", () => {
        assert.deepEqual(values("dynamo-operator"), {
            "dynamo-operator": {
                controllerManager: {
                    manager: { image: { repository: "nvcr.io/nvidia/ai-dynamo/kubernetes-operator" } },
                    resources: { limits: { memory: "2Gi" }, requests: { cpu: "512m", memory: "1Gi" } },
                    replicas: 1,
                },
                upgradeCRD: true,
                webhook: { failurePolicy: "Fail", certManager: { enabled: false } },
                namespaceRestriction: { enabled: false },
            },
            nats: { jetstream: { enabled: true, fileStore: { enabled: true, pvc: { enabled: true } } } },
            global: {
                nats: { install: true },
                etcd: { enabled: false, install: false },
                grove: { enabled: true, install: false },
                "kai-scheduler": { enabled: false, install: false },
            },
            metricsService: { enabled: true },
        });
    });

    test("nvca-operator: both gates, and the golden render's merge config as a string", () => {
        const op = byName("compute-plane-gpu-a-nvca-operator").inputs.values as Record<string, any>;
        assert.deepEqual(op.selfManaged.featureGateValues, [...DEFAULT_GATES, "KAIScheduler", "DynamoOperatorSupport"]);
        assert.deepEqual(types(JSON.parse(op.agentConfig.mergeConfig)), [
            t("foo.com", "v1", "FooType", "footypes"),
            ...KAI_TYPES,
            ...GROVE_TYPES,
            ...DYNAMO_TYPES,
        ]);
        assert.equal(JSON.parse(op.agentConfig.mergeConfig).cluster.validationPolicy.name, "Unrestricted");
    });
});

describe("add-on values follow the plane's placement and settings", () => {
    const placement = {
        nodeSelector: { enabled: true, key: "nvcf.nvidia.com/workload", value: "system" },
        tolerations: [{ key: "gpu", operator: "Exists", effect: "NoSchedule" }],
    };
    const ctx = (extra: Record<string, unknown>) => ({
        plane: parsePlane({ addons: ALL_ON, ...placement, ...extra }),
        imagePullSecrets: [],
    });
    const entry = (name: string) => ADDONS.find((a) => a.name === name)!;

    test("KAI: node selector and tolerations in global, no pull secrets when there are none, resource overrides", () => {
        const v = entry("kai-scheduler").values(
            ctx({ addons: { ...ALL_ON, kaiScheduler: { enabled: true, binder: { resources: { limits: { memory: "8Gi" } } } } } }),
        );
        assert.deepEqual(v.global, {
            securityContext: { runAsUser: 10000, runAsNonRoot: true, allowPrivilegeEscalation: false, capabilities: { drop: ["ALL"] } },
            nodeSelector: { "nvcf.nvidia.com/workload": "system" },
            tolerations: placement.tolerations,
        });
        assert.deepEqual((v.binder as any).resources, { requests: { cpu: "50m", memory: "2Gi" }, limits: { cpu: "4000m", memory: "8Gi" } });
    });

    test("Grove: node selector, tolerations, network passed through", () => {
        const v = entry("grove-operator").values(
            ctx({ addons: { ...ALL_ON, groveOperator: { enabled: true, network: { autoMNNVLEnabled: true } } } }),
        ) as any;
        assert.deepEqual(v.nodeSelector, { "nvcf.nvidia.com/workload": "system" });
        assert.deepEqual(v.tolerations, placement.tolerations);
        assert.deepEqual(v.config.network, { autoMNNVLEnabled: true });
    });

    test("Dynamo: node affinity for the operator, node selector and tolerations for NATS", () => {
        const v = entry("dynamo-operator").values(ctx({})) as any;
        assert.deepEqual(v["dynamo-operator"].controllerManager.affinity, {
            nodeAffinity: {
                requiredDuringSchedulingIgnoredDuringExecution: {
                    nodeSelectorTerms: [{ matchExpressions: [{ key: "nvcf.nvidia.com/workload", operator: "In", values: ["system"] }] }],
                },
            },
        });
        assert.deepEqual(v["dynamo-operator"].controllerManager.tolerations, placement.tolerations);
        assert.deepEqual(v.nats.podTemplate, {
            merge: { spec: { nodeSelector: { "nvcf.nvidia.com/workload": "system" }, tolerations: placement.tolerations } },
        });
    });

    test("topology: the user's topologies; Grove without topology gets no topology-aware scheduling", () => {
        const topologies = [{ name: "rack", levels: [{ nodeLabel: "example.com/rack" }] }];
        const plane = parsePlane({ addons: { ...ALL_ON, topologyAwareScheduling: { enabled: true, topologies } } });
        assert.deepEqual(topologyValues({ plane, imagePullSecrets: [] }, { kai: true }).topologies, topologies);
        const noTopology = parsePlane({ addons: { kaiScheduler: { enabled: true }, groveOperator: { enabled: true } } });
        assert.equal(
            (entry("grove-operator").values({ plane: noTopology, imagePullSecrets: [] }) as any).config.topologyAwareScheduling,
            undefined,
        );
    });
});

describe("add-ons installed outside the stack", () => {
    test("KAI and Grove outside, Dynamo here: Dynamo waits for nothing of theirs, NVCA gets both gates' types", async () => {
        const run = await runWithPlanes([
            {
                clusterName: "gpu-x",
                cluster: { sameAsControlPlane: true },
                kaiSchedulerInstalled: true,
                groveOperatorInstalled: true,
                addons: { dynamoOperator: { enabled: true } },
            },
        ]);
        const releases = run.resources.filter(
            (r) => r.type === "kubernetes:helm.sh/v3:Release" && r.name.startsWith("compute-plane-gpu-x-"),
        );
        assert.deepEqual(releases.map((r) => r.inputs.name).sort(), ["csi-driver-smb", "dynamo-operator", "nvca-operator"]);
        const op = releases.find((r) => r.inputs.name === "nvca-operator")!.inputs.values as Record<string, any>;
        assert.deepEqual(op.selfManaged.featureGateValues, [...DEFAULT_GATES, "KAIScheduler", "DynamoOperatorSupport"]);
        assert.deepEqual(JSON.parse(op.agentConfig.mergeConfig), {
            cluster: {
                validationPolicy: { allowedExtraKubernetesTypes: [...KAI_TYPES, ...GROVE_TYPES, ...DYNAMO_TYPES], name: "Default" },
            },
        });
    });
});
