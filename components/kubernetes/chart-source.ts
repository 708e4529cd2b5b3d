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
