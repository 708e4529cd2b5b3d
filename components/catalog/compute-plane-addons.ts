import type { ComputePlaneConfig } from "../../config/model/compute-plane-schema";
import { kaiSchedulerPresent } from "../../config/model/derived-facts";
import { needNames, type ChartSource, type Need, type ReleaseEntry, type Values, type VersionSource } from "../release/entry";
import { NVCA_OPERATOR_NAMESPACE } from "../../lib/contracts/nvca";

/**
 * The compute-plane bundle's optional GPU scheduling add-ons (its `01-dependencies` helmfile), as
 * data: one entry per release, in the file's order. The compute plane turns the enabled entries
 * into releases; nvca-operator (the next file) comes after all of them.
 */

/** What a values builder reads. */
export interface AddonValuesContext {
    readonly plane: ComputePlaneConfig;
    /** The plane's `imagePullSecrets`: the configured ones, then the stack's pull secret. */
    readonly imagePullSecrets: readonly { readonly name: string }[];
}

export type AddonEntry = ReleaseEntry<ComputePlaneConfig, AddonValuesContext>;

/** The KAI scheduler: the release and its namespace must both be `kai-scheduler` (KAI's installation requirement). */
export const KAI_SCHEDULER = "kai-scheduler";
/** The bundle's local chart of the topology releases; it has no repository of its own. */
export const TOPOLOGY_CHART = "nvcf-cluster-topology";

const topologyOn = (plane: ComputePlaneConfig) => plane.addons.topologyAwareScheduling.enabled;
const fixed = (ns: string) => () => ns;
const BUNDLE: VersionSource<ComputePlaneConfig> = { kind: "bundle" };
/** A public repository of the bundle's `repositories:`, unless the plane names a mirror. */
const publicRepository = (repository: string, mirror: (p: ComputePlaneConfig) => string | undefined): ChartSource<ComputePlaneConfig> => ({
    kind: "public",
    repository,
    mirror,
});
/** The bundle's topology chart directory (addons.topologyAwareScheduling.chartsPath), or a repository it was pushed to. */
const TOPOLOGY_LOCAL: ChartSource<ComputePlaneConfig> = {
    kind: "local-or-pushed",
    directory: (p) => p.addons.topologyAwareScheduling.chartsPath,
    pushedTo: (p) => p.addons.topologyAwareScheduling.repository,
};
const need = (release: string, why: string): Need => ({ release, why });

export const ADDONS: readonly AddonEntry[] = [
    {
        name: KAI_SCHEDULER,
        namespace: fixed(KAI_SCHEDULER),
        chart: "kai-scheduler",
        source: publicRepository("oci://ghcr.io/kai-scheduler/kai-scheduler", (p) => p.addons.kaiScheduler.repository),
        version: BUNDLE,
        needs: [],
        enabled: (plane) => plane.addons.kaiScheduler.enabled,
        values: kaiSchedulerValues,
    },
    {
        // Cluster-scoped Topology CRs; the release lives with NVCA's own resources.
        name: "nvcf-kai-topology",
        namespace: fixed(NVCA_OPERATOR_NAMESPACE),
        chart: TOPOLOGY_CHART,
        source: TOPOLOGY_LOCAL,
        version: BUNDLE,
        needs: [need(KAI_SCHEDULER, "its Topology objects are KAI's CRD (kai.scheduler/v1alpha1)")],
        // A KAI scheduler installed outside the stack serves the Topology CRD as well.
        enabled: (plane) => topologyOn(plane) && kaiSchedulerPresent(plane),
        values: (ctx) => topologyValues(ctx, { kai: true }),
    },
    {
        name: "grove-operator",
        namespace: fixed("grove-system"),
        chart: "grove-charts",
        source: publicRepository("oci://ghcr.io/ai-dynamo/grove", (p) => p.addons.groveOperator.repository),
        version: BUNDLE,
        // Grove's chart is not in NVIDIA/nvcf; its render with the bundle's values is, at the pinned commit
        // (deploy/stacks/nvcf-compute-plane/testdata/golden/local/01-dependencies.yaml-grove-operator/grove-charts/templates):
        // clusterrole.yaml lets the operator create and watch KAI's Topology objects, configmap-operator.yaml gives it a
        // kai-scheduler profile and, with topologyAwareScheduling, its topology handling. Whether the operator starts
        // without KAI's CRDs is in its source, which is not there either: kept.
        needs: [
            need(
                KAI_SCHEDULER,
                "its operator creates and watches KAI's Topology objects (kai.scheduler, in its ClusterRole) and places its pod gangs through the kai-scheduler profile of its config",
            ),
        ],
        enabled: (plane) => plane.addons.groveOperator.enabled,
        values: groveOperatorValues,
    },
    {
        // Grove's ClusterTopologyBindings reference the KAI Topology CRs: after both.
        name: "nvcf-grove-topology",
        namespace: fixed(NVCA_OPERATOR_NAMESPACE),
        chart: TOPOLOGY_CHART,
        source: TOPOLOGY_LOCAL,
        version: BUNDLE,
        needs: [
            need("grove-operator", "its ClusterTopologyBinding objects are Grove's CRD"),
            need("nvcf-kai-topology", "its bindings reference the KAI Topology objects by topologyReference"),
        ],
        enabled: (plane) => topologyOn(plane) && plane.addons.groveOperator.enabled,
        values: (ctx) => topologyValues(ctx, { kai: false }),
    },
    {
        name: "dynamo-operator",
        namespace: fixed("dynamo-system"),
        chart: "dynamo-platform",
        source: publicRepository("https://helm.ngc.nvidia.com/nvidia/ai-dynamo", (p) => p.addons.dynamoOperator.repository),
        version: BUNDLE,
        // Dynamo's chart is not in NVIDIA/nvcf; its render with the bundle's values is, at the pinned commit
        // (.../01-dependencies.yaml-dynamo-operator/dynamo-platform/charts/dynamo-operator/templates): operator-config.yaml
        // turns its Grove orchestrator on (global.grove: enabled, not installed), manager-rbac.yaml lets it create and watch
        // grove.io PodCliqueSets. Grove's CRDs come from grove-operator's crd-installer init container (its deployment.yaml;
        // whether the chart's crds/ holds them too, a render does not show): once that release is ready they are served.
        // Whether the Dynamo operator starts without them is in its source, which is not in the repository: kept.
        // Its ServiceMonitor and PodMonitor, left unset, are detected through .Capabilities (the comments of
        // operator-servicemonitor.yaml and prometheus.yaml; the values' top-level metricsService is not the subchart's, and
        // the render has neither). No compute-plane release serves monitoring.coreos.com; on the control plane's cluster its
        // prometheus-operator-crds does, and no add-on waits for the control plane.
        needs: [
            need(
                "grove-operator",
                "the values turn on its Grove orchestrator: it creates and watches Grove's PodCliqueSets, whose CRDs grove-operator's init container applies when its pod starts",
            ),
        ],
        enabled: (plane) => plane.addons.dynamoOperator.enabled,
        values: dynamoOperatorValues,
    },
];

/** The enabled add-ons of a plane, in the bundle's file order. */
export function enabledAddons(plane: ComputePlaneConfig): AddonEntry[] {
    return ADDONS.filter((entry) => entry.enabled(plane));
}

/**
 * Each enabled add-on's dependencies: its enabled `needs` only. Within one helmfile file Helmfile
 * orders by `needs` alone, and the catalog lists every release after what it needs, so the
 * catalog order is an install order.
 */
export function addonDependencies(enabled: readonly AddonEntry[]): Map<string, string[]> {
    const names = new Set(enabled.map((e) => e.name));
    return new Map(enabled.map((e) => [e.name, needNames(e).filter((n) => names.has(n))]));
}

const KAI_DEFAULT_RESOURCES: Record<string, { requests: [string, string]; limits: [string, string] }> = {
    operator: { requests: ["50m", "256Mi"], limits: ["1000m", "1Gi"] },
    podgrouper: { requests: ["50m", "512Mi"], limits: ["1000m", "4Gi"] },
    podgroupcontroller: { requests: ["50m", "256Mi"], limits: ["1000m", "1Gi"] },
    binder: { requests: ["50m", "2Gi"], limits: ["4000m", "4Gi"] },
    scheduler: { requests: ["500m", "3Gi"], limits: ["2000m", "6Gi"] },
    queuecontroller: { requests: ["50m", "256Mi"], limits: ["1000m", "1Gi"] },
    admission: { requests: ["50m", "256Mi"], limits: ["1000m", "1Gi"] },
    nodescaleadjuster: { requests: ["50m", "256Mi"], limits: ["1000m", "1Gi"] },
    numaPlacementExporter: { requests: ["50m", "64Mi"], limits: ["1000m", "1Gi"] },
};
type KaiComponent = keyof typeof KAI_DEFAULT_RESOURCES & keyof ComputePlaneConfig["addons"]["kaiScheduler"];

/** A KAI component's resources: the user's `addons.kaiScheduler.<component>.resources` over the bundle's defaults. */
function kaiResources(plane: ComputePlaneConfig, component: KaiComponent) {
    const given = (plane.addons.kaiScheduler[component] as { resources: { requests: Quantities; limits: Quantities } }).resources;
    const d = KAI_DEFAULT_RESOURCES[component];
    return {
        requests: { cpu: given.requests.cpu ?? d.requests[0], memory: given.requests.memory ?? d.requests[1] },
        limits: { cpu: given.limits.cpu ?? d.limits[0], memory: given.limits.memory ?? d.limits[1] },
    };
}
type Quantities = { cpu?: string | number; memory?: string | number };

/** `{key: value}` of the plane's node selector, when it is on. */
function nodeSelectorMap(plane: ComputePlaneConfig): Record<string, string> | undefined {
    return plane.nodeSelector.enabled ? { [plane.nodeSelector.key]: plane.nodeSelector.value } : undefined;
}

const unlimited = { quota: -1, limit: -1, overQuotaWeight: 1 };

export function kaiSchedulerValues({ plane, imagePullSecrets }: AddonValuesContext): Values {
    const nodeSelector = nodeSelectorMap(plane);
    const component = (name: KaiComponent) => ({ resources: kaiResources(plane, name) });
    return {
        global: {
            securityContext: {
                runAsUser: 10000,
                runAsNonRoot: true,
                allowPrivilegeEscalation: false,
                capabilities: { drop: ["ALL"] },
            },
            ...(nodeSelector ? { nodeSelector } : {}),
            ...(imagePullSecrets.length > 0 ? { imagePullSecrets: imagePullSecrets.map((s) => ({ ...s })) } : {}),
            ...(plane.tolerations.length > 0 ? { tolerations: plane.tolerations } : {}),
        },
        // Image names stay the chart's (ghcr.io/kai-scheduler/kai-scheduler/*), as in the bundle.
        operator: component("operator"),
        podgrouper: component("podgrouper"),
        podgroupcontroller: component("podgroupcontroller"),
        binder: component("binder"),
        scheduler: {
            placementStrategy: "binpack",
            plugins: { nodeplacement: { arguments: { gpu: "binpack", cpu: "spread" } } },
            actions: { preempt: { enabled: false }, consolidation: { enabled: false } },
            ...component("scheduler"),
        },
        queuecontroller: component("queuecontroller"),
        admission: component("admission"),
        nodescaleadjuster: component("nodescaleadjuster"),
        numaPlacementExporter: component("numaPlacementExporter"),
        defaultQueue: {
            createDefaultQueue: true,
            parentName: "default-parent-queue",
            childName: "default-queue",
            parentResources: { cpu: unlimited, gpu: unlimited, memory: unlimited },
            childResources: { cpu: unlimited, gpu: unlimited, memory: unlimited },
        },
    };
}

/** One chart, two releases: the KAI Topology CRs, or the Grove bindings that reference them. */
export function topologyValues({ plane }: AddonValuesContext, which: { kai: boolean }): Values {
    return {
        topologies: plane.addons.topologyAwareScheduling.topologies,
        kaiScheduler: { enabled: which.kai },
        groveOperator: { enabled: !which.kai },
    };
}

export function groveOperatorValues({ plane }: AddonValuesContext): Values {
    const nodeSelector = nodeSelectorMap(plane);
    const { network } = plane.addons.groveOperator;
    return {
        replicaCount: 1,
        image: { repository: "ghcr.io/ai-dynamo/grove/grove-operator", tag: "v0.1.0-alpha.11" },
        resources: { limits: { memory: "1Gi" }, requests: { cpu: "50m", memory: "128Mi" } },
        ...(nodeSelector ? { nodeSelector } : {}),
        ...(plane.tolerations.length > 0 ? { tolerations: plane.tolerations } : {}),
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
            ...(plane.addons.topologyAwareScheduling.enabled ? { topologyAwareScheduling: { enabled: true } } : {}),
            ...(Object.keys(network).length > 0 ? { network } : {}),
            server: {
                webhooks: { port: 9443, certProvisionMode: "auto", secretName: "grove-webhook-server-cert" },
                healthProbes: { enable: true, port: 9444 },
                metrics: { port: 9445 },
            },
        },
        // The operator provisions its own webhook certificate: a Helm upgrade must not overwrite it.
        webhookServerSecret: { enabled: false },
        // Helm never upgrades CRDs; Grove's init container applies them on every start.
        crdInstaller: { enabled: true },
    };
}

export function dynamoOperatorValues({ plane }: AddonValuesContext): Values {
    const ns = plane.nodeSelector;
    const tolerations = plane.tolerations;
    const podSpec = {
        ...(ns.enabled ? { nodeSelector: { [ns.key]: ns.value } } : {}),
        ...(tolerations.length > 0 ? { tolerations } : {}),
    };
    return {
        "dynamo-operator": {
            controllerManager: {
                manager: { image: { repository: "nvcr.io/nvidia/ai-dynamo/kubernetes-operator" } },
                resources: { limits: { memory: "2Gi" }, requests: { cpu: "512m", memory: "1Gi" } },
                replicas: 1,
                ...(ns.enabled
                    ? {
                          affinity: {
                              nodeAffinity: {
                                  requiredDuringSchedulingIgnoredDuringExecution: {
                                      nodeSelectorTerms: [{ matchExpressions: [{ key: ns.key, operator: "In", values: [ns.value] }] }],
                                  },
                              },
                          },
                      }
                    : {}),
                ...(tolerations.length > 0 ? { tolerations } : {}),
            },
            upgradeCRD: true,
            webhook: { failurePolicy: "Fail", certManager: { enabled: false } },
            namespaceRestriction: { enabled: false },
        },
        nats: {
            jetstream: { enabled: true, fileStore: { enabled: true, pvc: { enabled: true } } },
            // NATS pods follow the plane's placement; JetStream's PVC must attach where they land.
            ...(Object.keys(podSpec).length > 0 ? { podTemplate: { merge: { spec: podSpec } } } : {}),
        },
        global: {
            nats: { install: true },
            etcd: { enabled: false, install: false },
            grove: { enabled: true, install: false },
            // NVCA puts KAI's scheduling into workload pods itself; the operator chart need not wire to KAI.
            "kai-scheduler": { enabled: false, install: false },
        },
        metricsService: { enabled: true },
    };
}
