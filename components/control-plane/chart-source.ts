import * as pulumi from "@pulumi/pulumi";
import type { Settings } from "../../config/load";
import type { ChartRef } from "../kubernetes/helm-release";
import type { CatalogEntry } from "./catalog";

/** The NGC user name for API keys, on registries and chart repositories alike. */
export const NGC_USERNAME = "$oauthtoken";

/**
 * Credentials for chart pulls, passed on every release: no shared `helm registry login`, so
 * NVIDIA's "last login per host wins" multi-org trap cannot happen.
 */
export function chartCredentials(
    settings: Settings,
): { username: string; password: pulumi.Output<string> } | undefined {
    const sources = settings.controlPlane.global.helm.sources;
    if (sources.path) return undefined;
    const password = settings.secrets.chartRegistryPassword ?? settings.secrets.ngcApiKey;
    const ngc = sources.url ? new URL(sources.url).hostname.endsWith("ngc.nvidia.com") : sources.registry === "nvcr.io";
    const username = sources.username ?? (ngc ? NGC_USERNAME : undefined);
    return username && password ? { username, password } : undefined;
}

/** Where Helm pulls one catalog entry's chart from. */
export function chartRef(entry: CatalogEntry, settings: Settings): ChartRef {
    const cp = settings.controlPlane;
    const sources = cp.global.helm.sources;
    if (entry.source === "observability-local" && cp.observability.chartsPath) {
        return { chart: `${cp.observability.chartsPath.replace(/\/$/, "")}/${entry.chart}` };
    }
    if (sources.path) return { chart: `${sources.path.replace(/\/$/, "")}/${entry.chart}` };
    const auth = chartCredentials(settings);
    if (sources.url) {
        return { chart: entry.chart, repositoryOpts: { repo: sources.url, ...auth } };
    }
    return {
        chart: `oci://${sources.registry}/${sources.repository}/${entry.chart}`,
        ...(auth ? { repositoryOpts: auth } : {}),
    };
}
