import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";

/** Where Helm finds a chart: an `oci://` reference, a name in an https repository, or a local path. */
export interface ChartRef {
    readonly chart: string;
    readonly repositoryOpts?: {
        readonly repo?: string;
        readonly username?: string;
        readonly password?: pulumi.Input<string>;
    };
}

export interface HelmReleaseArgs {
    /** The Helm release name, always explicit so the chart's object names never change. */
    readonly name: string;
    readonly namespace: pulumi.Input<string>;
    readonly chart: ChartRef;
    readonly version: string;
    readonly values: pulumi.Input<Record<string, unknown>>;
    /** Do not wait for workloads to become ready (clusters with no nodes). */
    readonly skipAwait: boolean;
}

/** The bundle's helmDefaults on every release, except createNamespace: namespaces are owned resources. */
export const HELM_DEFAULTS = { timeout: 900, devel: true, waitForJobs: true } as const;

/**
 * One Helm release as `helm.v3.Release`, never client-side templating: the charts need their
 * hooks (OpenBao init, Cassandra migrations, account bootstrap) and `lookup`, which a client-side render would lose.
 */
export function helmRelease(logicalName: string, args: HelmReleaseArgs, opts: pulumi.CustomResourceOptions): k8s.helm.v3.Release {
    return new k8s.helm.v3.Release(
        logicalName,
        {
            name: args.name,
            namespace: args.namespace,
            chart: args.chart.chart,
            ...(args.chart.repositoryOpts ? { repositoryOpts: args.chart.repositoryOpts } : {}),
            version: args.version,
            values: args.values,
            createNamespace: false,
            devel: HELM_DEFAULTS.devel,
            timeout: HELM_DEFAULTS.timeout,
            waitForJobs: args.skipAwait ? false : HELM_DEFAULTS.waitForJobs,
            skipAwait: args.skipAwait,
            // A failed first install is repaired by uninstalling, never by rollback magic.
            atomic: false,
            cleanupOnFail: false,
        },
        // A replacement (new name or namespace) must not run two copies of a chart side by side:
        // the release name, and cluster-scoped objects, would clash.
        { deleteBeforeReplace: true, ...opts },
    );
}
