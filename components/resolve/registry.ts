import type { KyvernoInstall } from "../catalog/prerequisites";
import * as pulumi from "@pulumi/pulumi";
import { ecrRegistry } from "../../config/model/aws-schema";
import type { Settings } from "../../config/settings";
import { ecrChartCredentials } from "../aws/ecr";
import type { AwsProviders } from "../aws/providers";
import { chartCredentials, type ChartCredentials, type HelmSources } from "../kubernetes/chart-source";
import type { PullSecretsArgs } from "../kubernetes/pull-secrets";

/** How one plane's images and charts are pulled. */
export interface RegistryAccess {
    /** The pull secret the stack creates in every namespace it owns; unset when it creates none. */
    readonly pullSecret?: Omit<PullSecretsArgs, "namespaces">;
    /** The charts' `imagePullSecrets`: the configured ones, then the stack's own pull secret (unless Kyverno injects it). */
    readonly imagePullSecrets: readonly { readonly name: string }[];
    /**
     * The `imagePullSecrets` of a chart that hands them on to workloads it creates outside the
     * stack's namespaces (NVCA's mirror copies them for the function pods): always with the
     * stack's pull secret, which no Kyverno policy adds there.
     */
    readonly forwardedPullSecrets: readonly { readonly name: string }[];
    /** How pods get the stack's pull secret: the charts' values, or a Kyverno ClusterPolicy on their namespaces. */
    readonly pullSecretMode: "values" | "kyverno";
    /** Kyverno's chart, when the stack installs Kyverno (`registry.kyverno.install`). */
    readonly kyverno?: KyvernoInstall;
    /** Where the `nvcf` repository's charts come from. */
    readonly chartSources: HelmSources;
    /** Credentials for those chart pulls, when the source needs them. */
    readonly chartAuth?: ChartCredentials;
}

/** The registry a plane pulls from, as its settings give it. */
export interface RegistryRequest {
    readonly imageRegistry: string;
    readonly imagePullSecrets: readonly { readonly name: string }[];
    readonly chartSources: HelmSources;
}

export function resolveRegistry(settings: Settings, aws: AwsProviders, request: RegistryRequest): RegistryAccess {
    const pull = settings.registry.pullSecret;
    const password = pullSecretPassword(settings, request.imageRegistry);
    const forwardedPullSecrets = [...request.imagePullSecrets];
    if (password && !forwardedPullSecrets.some((s) => s.name === pull.name)) forwardedPullSecrets.push({ name: pull.name });
    // With Kyverno the policy adds the secret to every pod, so the values keep only the user's own.
    const imagePullSecrets = pull.mode === "kyverno" ? [...request.imagePullSecrets] : forwardedPullSecrets;
    const kyverno = settings.registry.kyverno;
    const chartAuth = chartAuthFor(request.chartSources, settings, aws);
    return {
        ...(password
            ? { pullSecret: { name: pull.name, server: pull.server ?? request.imageRegistry, username: pull.username, password } }
            : {}),
        imagePullSecrets,
        forwardedPullSecrets,
        pullSecretMode: pull.mode,
        ...(pull.mode === "kyverno" && kyverno.install && kyverno.version
            ? {
                  kyverno: {
                      version: kyverno.version,
                      ...(kyverno.repository ? { repository: kyverno.repository } : {}),
                      namespace: kyverno.namespace,
                      values: kyverno.values,
                  },
              }
            : {}),
        chartSources: request.chartSources,
        ...(chartAuth ? { chartAuth } : {}),
    };
}

/**
 * Chart-pull credentials for a chart source: an ECR token for an ECR registry, else the
 * configured password (or NGC key) for NGC or a named user, else none.
 */
function chartAuthFor(sources: HelmSources, settings: Settings, aws: AwsProviders): ChartCredentials | undefined {
    if (!sources.url && !sources.path && sources.registry && ecrRegistry(sources.registry)) {
        return ecrChartCredentials(sources.registry, aws);
    }
    return chartCredentials(sources, settings.secrets.chartRegistryPassword ?? settings.secrets.ngcApiKey);
}

/**
 * The password of the pull secrets, when the stack creates them: never for ECR, whose nodes
 * pull with their IAM role, nor when the user turned them off.
 */
function pullSecretPassword(settings: Settings, imageRegistry: string): pulumi.Output<string> | undefined {
    if (!settings.registry.pullSecret.enabled || ecrRegistry(imageRegistry)) return undefined;
    return settings.secrets.ngcApiKey;
}
