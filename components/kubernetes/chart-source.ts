import * as pulumi from "@pulumi/pulumi";
import type { ChartRef } from "./helm-release";

/** The NGC user name for API keys, on registries and chart repositories alike. */
export const NGC_USERNAME = "$oauthtoken";

/** `global.helm.sources` of a bundle's environment file, plus a local directory. */
export interface HelmSources {
    readonly registry?: string;
    readonly repository?: string;
    readonly url?: string;
    readonly username?: string;
    readonly path?: string;
}

export interface ChartCredentials {
    readonly username: string;
    readonly password: pulumi.Output<string>;
}

/**
 * Credentials for chart pulls, passed on every release: no shared `helm registry login`, so
 * NVIDIA's "last login per host wins" multi-org trap cannot happen. NGC takes `$oauthtoken`.
 */
export function chartCredentials(sources: HelmSources, password: pulumi.Output<string> | undefined): ChartCredentials | undefined {
    if (sources.path) return undefined;
    const ngc = sources.url ? new URL(sources.url).hostname.endsWith("ngc.nvidia.com") : sources.registry === "nvcr.io";
    const username = sources.username ?? (ngc ? NGC_USERNAME : undefined);
    return username && password ? { username, password } : undefined;
}

/** Where Helm pulls a chart of the `nvcf` repository: a local directory, an https repository or OCI. */
export function chartFromSources(chart: string, sources: HelmSources, auth: ChartCredentials | undefined): ChartRef {
    if (sources.path) return { chart: `${sources.path.replace(/\/$/, "")}/${chart}` };
    if (sources.url) return { chart, repositoryOpts: { repo: sources.url, ...auth } };
    return {
        chart: `oci://${sources.registry}/${sources.repository}/${chart}`,
        ...(auth ? { repositoryOpts: auth } : {}),
    };
}

/**
 * Where Helm pulls a chart that is not the stack's own (an add-on, a cluster prerequisite): the
 * configured mirror, else the stack's local chart directory when its charts are mirrored to one,
 * else the chart's public repository (no credentials: the stack's chart credentials are for its
 * own source, and go only to a mirror on the same host).
 */
export function chartFromRepository(
    chart: string,
    publicRepository: string,
    override: string | undefined,
    sources: { readonly chartSources: HelmSources; readonly chartAuth?: ChartCredentials },
): ChartRef {
    if (!override && sources.chartSources.path) return chartFromSources(chart, { path: sources.chartSources.path }, undefined);
    const repository = (override ?? publicRepository).replace(/\/$/, "");
    const auth = override && sameHost(override, sources.chartSources) ? sources.chartAuth : undefined;
    if (repository.startsWith("oci://")) return { chart: `${repository}/${chart}`, ...(auth ? { repositoryOpts: auth } : {}) };
    if (/^https?:\/\//.test(repository)) return { chart, repositoryOpts: { repo: repository, ...auth } };
    return { chart: `${repository}/${chart}` };
}

/** A mirror on the stack's own chart host gets the stack's chart credentials; any other host none. */
function sameHost(repository: string, sources: HelmSources): boolean {
    const host = repository.replace(/^(oci|https?):\/\//, "").split("/")[0];
    const own = sources.url ? new URL(sources.url).host : sources.registry;
    return !/^(\/|\.)/.test(repository) && host !== "" && host === own;
}
