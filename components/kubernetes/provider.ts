import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { KUBERNETES_PROVIDER_VERSION } from "../../lib/contracts/pulumi-state";

/** What a Kubernetes provider needs to reach a cluster. */
export interface ClusterAccess {
    /** Kubeconfig contents; unset: $KUBECONFIG or ~/.kube/config. */
    readonly kubeconfig?: pulumi.Output<string>;
    readonly context?: string;
    /** Pins the provider's identity, so rotating a kubeconfig or credential never replaces every resource on the cluster. */
    readonly clusterIdentifier: string;
}

/**
 * One explicit provider per cluster, at the provider version the e2e suite verifies (its state
 * bookkeeping is what `npm run recover` edits).
 */
export function clusterProvider(name: string, access: ClusterAccess, opts?: pulumi.CustomResourceOptions): k8s.Provider {
    return new k8s.Provider(
        name,
        {
            ...(access.kubeconfig ? { kubeconfig: access.kubeconfig } : {}),
            ...(access.context ? { context: access.context } : {}),
            clusterIdentifier: access.clusterIdentifier,
        },
        { version: KUBERNETES_PROVIDER_VERSION, ...opts },
    );
}
