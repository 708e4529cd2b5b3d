import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";

export interface ClusterAccess {
    readonly context?: string;
    readonly clusterIdentifier: string;
}

/**
 * One explicit provider per cluster. `clusterIdentifier` pins its identity, so rotating a
 * kubeconfig or credential never replaces every resource on the cluster.
 */
export function clusterProvider(
    name: string,
    access: ClusterAccess,
    kubeconfig: pulumi.Output<string> | undefined,
    opts?: pulumi.CustomResourceOptions,
): k8s.Provider {
    return new k8s.Provider(
        name,
        {
            ...(kubeconfig ? { kubeconfig } : {}),
            ...(access.context ? { context: access.context } : {}),
            clusterIdentifier: access.clusterIdentifier,
        },
        opts,
    );
}
