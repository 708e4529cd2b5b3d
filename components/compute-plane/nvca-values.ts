import * as pulumi from "@pulumi/pulumi";
import type { ComputePlaneConfig } from "../../config/compute-plane-schema";

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
    // KAIScheduler only where the KAI scheduler runs, or NVCA stays unhealthy.
    if (plane.kaiSchedulerInstalled) defaults.push("KAIScheduler");
    const listed = new Set(plane.featureGates.map((g) => g.replace(/^-/, "")));
    return [...plane.featureGates, ...defaults.filter((g) => !listed.has(g))];
}

export interface NvcaValuesArgs {
    readonly plane: ComputePlaneConfig;
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
    return {
        image: { repository: `${prefix}/nvca-operator`, tag: op.imageTag, pullPolicy: "IfNotPresent" },
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
            nvcaVersion: op.nvcaVersion,
            // The cluster DTO reads selfManaged.region, not region.
            region: plane.region,
            ...args.endpoints,
            featureGateValues: featureGates(plane),
            otelCollector: {
                enabled: op.otelCollector.enabled ?? (profile === "compute" || profile === "all"),
                imageTag: op.otelCollector.imageTag,
                ...(op.otelCollector.imageRepository ? { imageRepository: op.otelCollector.imageRepository } : {}),
            },
            imageCredHelper: { imageRepository: `${prefix}/nvcf-image-credential-helper` },
            sharedStorage: { imageRepository: `${prefix}/samba` },
        },
        // The chart takes the merge config as a YAML string; JSON is YAML, and deterministic.
        ...(plane.agentConfig.mergeConfig ? { agentConfig: { mergeConfig: JSON.stringify(plane.agentConfig.mergeConfig) } } : {}),
        ...(plane.networkPolicy ? { networkPolicy: plane.networkPolicy } : {}),
        ...(plane.nodeSelector.enabled ? { nodeSelector: { key: plane.nodeSelector.key, value: plane.nodeSelector.value } } : {}),
        ...(plane.tolerations.length > 0 ? { tolerations: plane.tolerations } : {}),
        agent: { tolerations: op.agent.tolerations, workload: { tolerations: op.agent.workload.tolerations } },
    };
}
