import * as pulumi from "@pulumi/pulumi";
import type { ComputePlaneConfig } from "../../config/compute-plane-schema";
import type { Settings } from "../../config/settings";
import { eksCluster, type EksCluster } from "../aws/eks";
import type { AwsProviders } from "../aws/providers";
import type { ClusterAccess } from "../kubernetes/provider";
import type { ClusterReach, KubeconfigSource } from "../providers/kube-reach";

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

export function resolveClusters(settings: Settings, aws: AwsProviders): StackClusters {
    const eks = settings.cluster.eks ? eksCluster(settings.cluster.eks, aws) : undefined;
    const controlPlane: ClusterTarget = eks
        ? fromEks(eks, eks.clusterIdentifier, settings.cluster.skipAwait)
        : {
              ...(settings.secrets.kubeconfig ? { kubeconfig: settings.secrets.kubeconfig } : {}),
              ...(settings.cluster.context ? { context: settings.cluster.context } : {}),
              clusterIdentifier: settings.cluster.clusterIdentifier,
              skipAwait: settings.cluster.skipAwait,
              kubeconfigSource: "control-plane",
          };
    const computePlanes = new Map(
        settings.computePlanes.map((plane) => [plane.clusterName, computePlaneTarget(plane, settings, aws, controlPlane)]),
    );
    return { controlPlane, computePlanes };
}

function fromEks(eks: EksCluster, clusterIdentifier: string, skipAwait: boolean): ClusterTarget {
    return {
        kubeconfig: eks.kubeconfig,
        generatedKubeconfig: eks.kubeconfig,
        clusterIdentifier,
        skipAwait,
        kubeconfigSource: "oidc-issuer",
        oidcIssuer: eks.oidcIssuer,
    };
}

/** A GPU cluster is reached only as its settings say; the ambient context may be another cluster, whose JWKS would be registered. */
function computePlaneTarget(plane: ComputePlaneConfig, settings: Settings, aws: AwsProviders, controlPlane: ClusterTarget): ClusterTarget {
    const { skipAwait } = plane.cluster;
    if (plane.cluster.eks) {
        const eks = eksCluster(plane.cluster.eks, aws);
        return fromEks(eks, plane.cluster.clusterIdentifier ?? eks.clusterIdentifier, skipAwait);
    }
    if (plane.cluster.sameAsControlPlane) {
        return { ...controlPlane, clusterIdentifier: plane.cluster.clusterIdentifier ?? controlPlane.clusterIdentifier, skipAwait };
    }
    const hasKubeconfig = settings.computePlaneKubeconfigNames.includes(plane.clusterName);
    const all = settings.secrets.computePlaneKubeconfigs;
    return {
        ...(hasKubeconfig && all
            ? { kubeconfig: pulumi.secret(all.apply((json) => (JSON.parse(json) as Record<string, string>)[plane.clusterName])) }
            : {}),
        ...(plane.cluster.context ? { context: plane.cluster.context } : {}),
        clusterIdentifier: plane.cluster.clusterIdentifier ?? plane.clusterName,
        skipAwait,
        kubeconfigSource: hasKubeconfig ? "compute-plane" : "default",
    };
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
