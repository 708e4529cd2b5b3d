import * as k8s from "@pulumi/kubernetes";
import type * as pulumi from "@pulumi/pulumi";
import { chartFromRepository, type ChartCredentials, type HelmSources } from "./chart-source";
import { helmRelease } from "./helm-release";

/**
 * Cluster software NVCF needs but does not ship, which the stack installs on request instead of
 * the user by hand: each as data (its release name, chart and public home), turned into a
 * release by the one release factory.
 */
export interface PrerequisiteChart {
    /** The Helm release name. */
    readonly release: string;
    readonly chart: string;
    /** Its public repository; a configured mirror, or the stack's local chart directory, replaces it. */
    readonly repository: string;
}

/** Envoy Gateway, released as `eg` as NVIDIA's docs and `nvcf-cli` install it. */
export const ENVOY_GATEWAY: PrerequisiteChart = { release: "eg", chart: "gateway-helm", repository: "oci://docker.io/envoyproxy" };

/** Kyverno, from the repository NVIDIA's stack operations guide installs it from. */
export const KYVERNO: PrerequisiteChart = { release: "kyverno", chart: "kyverno", repository: "https://kyverno.github.io/kyverno" };

export interface PrerequisiteReleaseArgs {
    readonly namespace: pulumi.Input<string>;
    /** The pinned chart version (a required setting: the stack pins every chart). */
    readonly version: string;
    /** A mirror of the chart's repository (https, oci:// or a path). */
    readonly repository?: string;
    readonly values: Record<string, unknown>;
    /** The plane's chart sources: a local chart directory holds these charts too. */
    readonly sources: { readonly chartSources: HelmSources; readonly chartAuth?: ChartCredentials };
    readonly skipAwait: boolean;
}

export function prerequisiteRelease(
    logicalName: string,
    prerequisite: PrerequisiteChart,
    args: PrerequisiteReleaseArgs,
    opts: pulumi.CustomResourceOptions,
): k8s.helm.v3.Release {
    return helmRelease(
        logicalName,
        {
            name: prerequisite.release,
            namespace: args.namespace,
            chart: chartFromRepository(prerequisite.chart, prerequisite.repository, args.repository, args.sources),
            version: args.version,
            values: args.values,
            skipAwait: args.skipAwait,
        },
        opts,
    );
}
