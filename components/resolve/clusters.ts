import * as pulumi from "@pulumi/pulumi";
import type { Settings } from "../../config/settings";
import {
    clusterRoute,
    type ClusterRoute,
    type ComputePlaneSecretRoute,
    type ControlPlaneSecretRoute,
    type StackCluster,
} from "../../lib/cluster-access/route";
import { eksCluster } from "../aws/eks";
import type { AwsProviders } from "../aws/providers";
import type { ClusterAccess } from "../kubernetes/provider";
import type { ClusterReach, KubeconfigSource } from "../../lib/cluster-access/reach";

/**
 * How the program, and the dynamic providers in their own process, reach one cluster: the
 * provider's access (kubeconfig from a config secret or built for EKS, context, identity) and more.
 */
export interface ClusterTarget extends ClusterAccess {
    /** A kubeconfig the program built (EKS): it holds no secret, so a dynamic provider may take it as an input. */
    readonly generatedKubeconfig?: pulumi.Output<string>;
    /** Skip Helm's and the DaemonSet's readiness waits. */
    readonly skipAwait: boolean;
    /** Where a dynamic provider finds this cluster's kubeconfig at run time (secrets never become inputs). */
    readonly kubeconfigSource: KubeconfigSource;
    /** The cluster's service-account issuer, when known without asking the cluster (EKS). */
    readonly oidcIssuer?: pulumi.Output<string>;
}

/** Every cluster of the stack, each resolved once. */
export interface StackClusters {
    readonly controlPlane: ClusterTarget;
    /** By compute plane `clusterName`. */
    readonly computePlanes: ReadonlyMap<string, ClusterTarget>;
}

/** Every cluster as lib/cluster-access/route.ts decides it is reached, turned into the providers' access. */
export function resolveClusters(settings: Settings, aws: AwsProviders): StackClusters {
    const controlPlane = clusterTarget("control-plane", clusterRoute(settings, "control-plane"), settings, aws);
    const computePlanes = new Map(
        settings.computePlanes.map(({ clusterName }) => {
            const route = clusterRoute(settings, { clusterName });
            // The control plane's own target: its EKS cluster is looked up once, and its kubeconfig is the same Output.
            const target: ClusterTarget = route.sameAsControlPlane
                ? { ...controlPlane, clusterIdentifier: route.clusterIdentifier, skipAwait: route.skipAwait }
                : clusterTarget({ clusterName }, route, settings, aws);
            return [clusterName, target];
        }),
    );
    return { controlPlane, computePlanes };
}

/** The providers' access for a route: a secret kubeconfig stays an Output, and a dynamic provider is told only where it is. */
function clusterTarget(cluster: StackCluster, route: ClusterRoute, settings: Settings, aws: AwsProviders): ClusterTarget {
    const { clusterIdentifier, skipAwait } = route;
    if (route.kind === "eks") {
        const eks = eksCluster(route.eks, aws);
        return {
            kubeconfig: eks.kubeconfig,
            generatedKubeconfig: eks.kubeconfig,
            clusterIdentifier,
            skipAwait,
            kubeconfigSource: "oidc-issuer",
            oidcIssuer: eks.oidcIssuer,
        };
    }
    const kubeconfig = route.kind === "stack-secret" ? secretKubeconfig(route, settings) : undefined;
    return {
        ...(kubeconfig ? { kubeconfig } : {}),
        ...(route.context ? { context: route.context } : {}),
        clusterIdentifier,
        skipAwait,
        // The control plane's dynamic providers look for the `kubeconfig` secret at run time, whether or not
        // the stack sets one: "control-plane" is in their recorded inputs, and a change would show as a diff.
        kubeconfigSource: cluster === "control-plane" ? "control-plane" : route.kind === "stack-secret" ? "compute-plane" : "default",
    };
}

function secretKubeconfig(route: ControlPlaneSecretRoute | ComputePlaneSecretRoute, settings: Settings): pulumi.Output<string> | undefined {
    if (route.key === "kubeconfig") return settings.secrets.kubeconfig;
    const all = settings.secrets.computePlaneKubeconfigs;
    return all && pulumi.secret(all.apply((json) => (JSON.parse(json) as Record<string, string>)[route.clusterName]));
}

/** How the checks' provider reaches a cluster (its kubeconfig's whereabouts, never a secret). */
export function clusterReach(cluster: ClusterTarget, clusterName?: string): pulumi.Input<ClusterReach> {
    const reach = {
        kubeconfigSource: cluster.kubeconfigSource,
        ...(clusterName ? { clusterName } : {}),
        ...(cluster.context ? { kubeContext: cluster.context } : {}),
    };
    return cluster.generatedKubeconfig ? cluster.generatedKubeconfig.apply((kubeconfig) => ({ ...reach, kubeconfig })) : reach;
}
