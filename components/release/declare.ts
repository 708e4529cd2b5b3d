import type * as k8s from "@pulumi/kubernetes";
import type * as pulumi from "@pulumi/pulumi";
import { deepMerge } from "../../config/model/deep-merge";
import { chartFromRepository, chartFromSources, type ChartCredentials, type HelmSources } from "../kubernetes/chart-source";
import { helmRelease, type ChartRef } from "../kubernetes/helm-release";
import type { ReleaseEntry, Values } from "./entry";

/** The chart sources and credentials of a plane, as its RegistryAccess resolved them. */
export interface ChartSources {
    readonly chartSources: HelmSources;
    readonly chartAuth?: ChartCredentials;
}

/** Where Helm pulls an entry's chart, for these settings. */
export function chartOf<P>(entry: ReleaseEntry<P, never>, p: P, sources: ChartSources): ChartRef {
    const { source, chart } = entry;
    switch (source.kind) {
        case "nvcf": {
            const directory = source.localDirectory?.(p);
            return directory
                ? chartFromSources(chart, { path: directory }, undefined)
                : chartFromSources(chart, sources.chartSources, sources.chartAuth);
        }
        case "public":
            return chartFromRepository(chart, source.repository, source.mirror(p), sources);
        case "local-or-pushed": {
            const directory = source.directory(p);
            if (directory) return chartFromSources(chart, { path: directory }, undefined);
            const pushedTo = source.pushedTo(p);
            return chartFromRepository(chart, pushedTo ?? "", pushedTo, sources);
        }
        case "setting": {
            const given = source.source(p);
            if (/^https?:\/\//.test(given)) return { chart, repositoryOpts: { repo: given } };
            return { chart: given };
        }
    }
}

/** An entry's chart version: a setting's, a pin's, else the bundle release's (`bundle`, by release name). */
export function versionOf<P>(entry: ReleaseEntry<P, never>, p: P, bundle: Readonly<Record<string, string>>): string {
    const { version } = entry;
    return version.kind === "setting" ? version.version(p) : (version.pin?.(p) ?? bundle[entry.name]);
}

export interface DeclaredRelease<P, C> {
    /** The Pulumi resource name. */
    readonly logicalName: string;
    readonly entry: ReleaseEntry<P, C>;
    /** What the entry's functions read. */
    readonly settings: P;
    /** The namespace, as the Namespace resource's name when the stack owns it (so destroy removes the release first). */
    readonly namespace: pulumi.Input<string>;
    readonly version: string;
    /** What the release is given (`releaseValues`). */
    readonly values: pulumi.Input<Values>;
    readonly sources: ChartSources;
    readonly skipAwait: boolean;
}

/** The values an entry's release is given: its builder's, with a `releases.<name>.values` block merged over them. */
export function releaseValues<P, C>(entry: ReleaseEntry<P, C>, context: C, overrideValues?: Values): Values {
    return deepMerge(entry.values(context), overrideValues);
}

/** The one place an entry becomes a Helm release. */
export function declareRelease<P, C>(args: DeclaredRelease<P, C>, opts: pulumi.CustomResourceOptions): k8s.helm.v3.Release {
    const { entry } = args;
    return helmRelease(
        args.logicalName,
        {
            name: entry.name,
            namespace: args.namespace,
            chart: chartOf(entry, args.settings, args.sources),
            version: args.version,
            values: args.values,
            skipAwait: args.skipAwait,
        },
        opts,
    );
}
