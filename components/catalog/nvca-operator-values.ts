import * as pulumi from "@pulumi/pulumi";
import type { ComputePlaneConfig } from "../../config/model/compute-plane-schema";
import { dynamoOperatorPresent, groveOperatorPresent, kaiSchedulerPresent } from "../../config/model/derived-facts";

/** Feature gates the compute-plane bundle always appends. */
export const DEFAULT_FEATURE_GATES = [
    "DynamicGPUDiscovery",
    "InfraResourceOverhead",
    "EnforceHelmFunctionResourceLimits",
    "EnforceContainerFunctionResourceLimits",
    "EnforceHelmTaskResourceLimits",
    "EnforceContainerTaskResourceLimits",
] as const;

/** The control-plane endpoints as the GPU cluster's pods reach them. */
export interface SelfManagedEndpoints {
    readonly icmsServiceURL: string;
    readonly icmsServiceHostHeaderOverride?: string;
    readonly revalServiceURL: string;
    readonly revalServiceHostHeaderOverride?: string;
    readonly natsURL: string;
    readonly natsHostOverride?: string;
}

/**
 * Defaults of the endpoints: in-cluster Services when the compute plane shares the control
 * plane's cluster, else the Gateway's hostnames under the control plane's domain.
 */
export function defaultEndpoints(plane: ComputePlaneConfig, domain: string): SelfManagedEndpoints {
    const s = plane.selfManaged;
    const local = plane.cluster.sameAsControlPlane;
    return {
        icmsServiceURL: s.icmsServiceURL ?? (local ? "http://api.sis.svc.cluster.local:8080" : `http://sis.${domain}`),
        revalServiceURL: s.revalServiceURL ?? (local ? "http://reval.nvcf.svc.cluster.local:8080" : `http://reval.${domain}`),
        natsURL: s.natsURL ?? (local ? "nats://nats.nats-system.svc.cluster.local:4222" : `nats://nats.${domain}:4222`),
        ...(s.icmsServiceHostHeaderOverride ? { icmsServiceHostHeaderOverride: s.icmsServiceHostHeaderOverride } : {}),
        ...(s.revalServiceHostHeaderOverride ? { revalServiceHostHeaderOverride: s.revalServiceHostHeaderOverride } : {}),
        ...(s.natsHostOverride ? { natsHostOverride: s.natsHostOverride } : {}),
    };
}

/** The user's gates plus the bundle's defaults; a default is skipped when `<gate>` or `-<gate>` is listed. */
export function featureGates(plane: ComputePlaneConfig): string[] {
    const defaults: string[] = [...DEFAULT_FEATURE_GATES];
    if (plane.observability.profile === "compute" || plane.observability.profile === "all") defaults.push("BYOObservability");
    // A gate only where its add-on runs (installed here or outside the stack), or NVCA stays unhealthy.
    if (kaiSchedulerPresent(plane)) defaults.push("KAIScheduler");
    if (dynamoOperatorPresent(plane)) defaults.push("DynamoOperatorSupport");
    const listed = new Set(plane.featureGates.map((g) => g.replace(/^-/, "")));
    return [...plane.featureGates, ...defaults.filter((g) => !listed.has(g))];
}

/** One entry of the validation policy's `allowedExtraKubernetesTypes`. */
export interface ExtraKubernetesType {
    readonly group: string;
    readonly version: string;
    readonly kind: string;
    readonly resource: string;
}

const type = (group: string, version: string, kind: string, resource: string): ExtraKubernetesType => ({ group, version, kind, resource });

/** The objects each add-on's controllers create for a Helm function, which NVCA must admit, render and collect. */
export const ADDON_EXTRA_TYPES = {
    kaiScheduler: [type("scheduling.run.ai", "v2alpha2", "PodGroup", "podgroups")],
    groveOperator: [
        type("grove.io", "v1alpha1", "PodCliqueSet", "podcliquesets"),
        type("grove.io", "v1alpha1", "PodClique", "podcliques"),
        type("grove.io", "v1alpha1", "PodCliqueScalingGroup", "podcliquescalinggroups"),
        type("scheduler.grove.io", "v1alpha1", "PodGang", "podgangs"),
    ],
    dynamoOperator: [
        type("nvidia.com", "v1alpha1", "DynamoCheckpoint", "dynamocheckpoints"),
        type("nvidia.com", "v1alpha1", "DynamoComponentDeployment", "dynamocomponentdeployments"),
        type("nvidia.com", "v1alpha1", "DynamoGraphDeployment", "dynamographdeployments"),
        type("nvidia.com", "v1alpha1", "DynamoGraphDeploymentRequest", "dynamographdeploymentrequests"),
        type("nvidia.com", "v1alpha1", "DynamoGraphDeploymentScalingAdapter", "dynamographdeploymentscalingadapters"),
        type("nvidia.com", "v1alpha1", "DynamoModel", "dynamomodels"),
        type("nvidia.com", "v1alpha1", "DynamoWorkerMetadata", "dynamoworkermetadatas"),
    ],
} as const;

/** The extra types of the add-ons that run on the plane (a listed gate counts, as in the bundle). */
export function addonExtraTypes(plane: ComputePlaneConfig): ExtraKubernetesType[] {
    return [
        ...(kaiSchedulerPresent(plane) || plane.featureGates.includes("KAIScheduler") ? ADDON_EXTRA_TYPES.kaiScheduler : []),
        ...(groveOperatorPresent(plane) ? ADDON_EXTRA_TYPES.groveOperator : []),
        ...(dynamoOperatorPresent(plane) || plane.featureGates.includes("DynamoOperatorSupport") ? ADDON_EXTRA_TYPES.dynamoOperator : []),
    ];
}

/**
 * The agent merge config: the user's, with the add-ons' extra types appended to
 * `cluster.validationPolicy.allowedExtraKubernetesTypes` (a type the user lists, by group,
 * version and kind, is kept as given). When types are added and the policy has no name, it is
 * `Default`: ReVal accepts only `Default` or `Unrestricted`. Undefined when there is nothing to
 * merge, so the chart's default (`Unrestricted`) applies.
 */
export function agentMergeConfig(plane: ComputePlaneConfig): Record<string, unknown> | undefined {
    const given = plane.agentConfig.mergeConfig;
    const extra = addonExtraTypes(plane);
    if (extra.length === 0) return given;
    const config: Record<string, unknown> = structuredClone(given ?? {});
    const cluster = child(config, "cluster");
    const policy = child(cluster, "validationPolicy");
    const allowed: unknown[] = Array.isArray(policy.allowedExtraKubernetesTypes) ? policy.allowedExtraKubernetesTypes : [];
    const keyOf = (t: unknown) => {
        const r = isRecord(t) ? t : {};
        return `${r.group}/${r.version}/${r.kind}`;
    };
    const seen = new Set(allowed.map(keyOf));
    policy.allowedExtraKubernetesTypes = [...allowed, ...extra.filter((t) => !seen.has(keyOf(t))).map((t) => ({ ...t }))];
    if (!policy.name) policy.name = "Default";
    return config;
}

function isRecord(value: unknown): value is Record<string, unknown> {
    return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The map under `key`, made empty when it is missing or not a map. */
function child(parent: Record<string, unknown>, key: string): Record<string, unknown> {
    const value = parent[key];
    if (isRecord(value)) return value;
    const made: Record<string, unknown> = {};
    parent[key] = made;
    return made;
}

/** What one GPU cluster installs: each release's chart version and the NVCA images. */
export interface ComputePlaneVersions {
    /** The add-ons' and the NVCA operator's chart versions, by release name. */
    readonly charts: Readonly<Record<string, string>>;
    readonly operatorImage: string;
    /** The NVCA agent the operator deploys (`selfManaged.nvcaVersion`). */
    readonly nvcaVersion: string;
    readonly otelCollectorImage: string;
}

export interface NvcaValuesArgs {
    readonly plane: ComputePlaneConfig;
    readonly versions: ComputePlaneVersions;
    readonly image: { readonly registry: string; readonly repository: string };
    readonly imagePullSecrets: readonly { name: string }[];
    readonly endpoints: SelfManagedEndpoints;
    readonly clusterId: pulumi.Input<string>;
    readonly clusterGroupId: pulumi.Input<string>;
}

/** The values the compute-plane bundle's 02-nvca.yaml.gotmpl builds, plus the fixes of what it gets wrong. */
export function nvcaOperatorValues(args: NvcaValuesArgs): Record<string, unknown> {
    const { plane, image } = args;
    const op = plane.nvcaOperator;
    const prefix = `${image.registry}/${image.repository}`;
    const profile = plane.observability.profile;
    const mergeConfig = agentMergeConfig(plane);
    return {
        image: { repository: `${prefix}/nvca-operator`, tag: args.versions.operatorImage, pullPolicy: "IfNotPresent" },
        nvcaImage: { repositoryOverride: `${prefix}/nvca` },
        ...(args.imagePullSecrets.length > 0 ? { imagePullSecrets: [...args.imagePullSecrets] } : {}),
        // The chart's generated pull secret does not work in self-managed mode: the stack creates its own.
        generateImagePullSecret: false,
        ngcConfig: { clusterSource: "self-managed" },
        clusterName: plane.clusterName,
        // The chart reads ncaID; the bundle's ncaId is dead.
        ncaID: plane.ncaId,
        clusterID: args.clusterId,
        clusterGroupID: args.clusterGroupId,
        selfManaged: {
            identitySource: "psat",
            nvcaVersion: args.versions.nvcaVersion,
            // The cluster DTO reads selfManaged.region, not region.
            region: plane.region,
            ...args.endpoints,
            featureGateValues: featureGates(plane),
            otelCollector: {
                enabled: op.otelCollector.enabled ?? (profile === "compute" || profile === "all"),
                imageTag: args.versions.otelCollectorImage,
                ...(op.otelCollector.imageRepository ? { imageRepository: op.otelCollector.imageRepository } : {}),
            },
            imageCredHelper: { imageRepository: `${prefix}/nvcf-image-credential-helper` },
            sharedStorage: { imageRepository: `${prefix}/samba` },
        },
        // The chart takes the merge config as a YAML string; JSON is YAML, and deterministic.
        ...(mergeConfig ? { agentConfig: { mergeConfig: JSON.stringify(mergeConfig) } } : {}),
        ...(plane.networkPolicy ? { networkPolicy: plane.networkPolicy } : {}),
        ...(plane.nodeSelector.enabled ? { nodeSelector: { key: plane.nodeSelector.key, value: plane.nodeSelector.value } } : {}),
        ...(plane.tolerations.length > 0 ? { tolerations: plane.tolerations } : {}),
        agent: { tolerations: op.agent.tolerations, workload: { tolerations: op.agent.workload.tolerations } },
    };
}
