/**
 * How each cluster of a stack is reached, decided once from the stack's settings. The program
 * (components/resolve/clusters.ts) turns a route into its providers' access, and `status` and
 * `upgrade` (scripts/status/targets.ts) into a kubeconfig to read the cluster with, so a
 * setting means the same to all of them. Pure: no Pulumi resource, no Output, no secret's text,
 * so a command that never decrypts a secret can take the same decision.
 */
import type { EksClusterConfig } from "../../config/model/aws-schema";
import type { Settings } from "../../config/model/keys";

/** The control plane's cluster, or the cluster of the compute plane of that `clusterName`. */
export type StackCluster = "control-plane" | { readonly clusterName: string };

/** What every route carries besides the way in. */
interface RouteIdentity {
    /** The kubernetes provider's stable identity: a change of it replaces every resource on the cluster. */
    readonly clusterIdentifier: string;
    /** Skip Helm's (and a compute plane's DaemonSet's) readiness waits. */
    readonly skipAwait: boolean;
    /** A compute plane on the control plane's cluster: the way in is the control plane's own. */
    readonly sameAsControlPlane?: true;
}

/** An EKS cluster by name: its kubeconfig is built from the cluster's endpoint and CA when `pulumi up` runs. */
export interface EksRoute extends RouteIdentity {
    readonly kind: "eks";
    readonly eks: EksClusterConfig;
}

/** The control plane's kubeconfig is the stack secret `kubeconfig`. */
export interface ControlPlaneSecretRoute extends RouteIdentity {
    readonly kind: "stack-secret";
    readonly key: "kubeconfig";
    readonly context?: string;
}

/** A compute plane's kubeconfig is its entry (by `clusterName`) in the stack secret `computePlaneKubeconfigs`. */
export interface ComputePlaneSecretRoute extends RouteIdentity {
    readonly kind: "stack-secret";
    readonly key: "computePlaneKubeconfigs";
    readonly clusterName: string;
    readonly context?: string;
}

/** $KUBECONFIG, else ~/.kube/config, at the context named (else its current one). */
export interface DefaultKubeconfigRoute extends RouteIdentity {
    readonly kind: "default-kubeconfig";
    readonly context?: string;
}

export type ClusterRoute = EksRoute | ControlPlaneSecretRoute | ComputePlaneSecretRoute | DefaultKubeconfigRoute;

/** An EKS cluster's identity: its region and name, so that a new endpoint or credential never replaces its resources. */
export function eksClusterIdentifier(eks: Pick<EksClusterConfig, "name" | "region">): string {
    return `eks:${eks.region}:${eks.name}`;
}

/**
 * How `cluster` is reached, as its settings say. EKS comes first: the settings' rules refuse an
 * EKS cluster that also names a context, a kubeconfig or the control plane's cluster.
 */
export function clusterRoute(settings: Settings, cluster: StackCluster): ClusterRoute {
    return cluster === "control-plane" ? controlPlaneRoute(settings) : computePlaneRoute(settings, cluster.clusterName);
}

function controlPlaneRoute(settings: Settings): ClusterRoute {
    const { eks, context, clusterIdentifier, skipAwait } = settings.cluster;
    // `cluster.clusterIdentifier` has a default ("control-plane"), so one set for an EKS cluster cannot
    // be told from it: the identity is always the one the cluster's region and name give.
    if (eks) return { kind: "eks", eks, clusterIdentifier: eksClusterIdentifier(eks), skipAwait };
    const reach = { ...(context ? { context } : {}), clusterIdentifier, skipAwait };
    return settings.secrets.kubeconfig !== undefined
        ? { kind: "stack-secret", key: "kubeconfig", ...reach }
        : { kind: "default-kubeconfig", ...reach };
}

/**
 * A GPU cluster never borrows the control plane's kubeconfig secret: its own entry, else a context
 * of the default kubeconfig. The settings' rules refuse a plane that names no way in, since the
 * ambient context may be another cluster, whose JWKS would be registered.
 */
function computePlaneRoute(settings: Settings, clusterName: string): ClusterRoute {
    const plane = settings.computePlanes.find((p) => p.clusterName === clusterName);
    if (!plane) throw new Error(`no compute plane ${clusterName} in the stack's settings`);
    const { eks, sameAsControlPlane, context, skipAwait } = plane.cluster;
    if (eks) return { kind: "eks", eks, clusterIdentifier: plane.cluster.clusterIdentifier ?? eksClusterIdentifier(eks), skipAwait };
    if (sameAsControlPlane) {
        const control = controlPlaneRoute(settings);
        return {
            ...control,
            clusterIdentifier: plane.cluster.clusterIdentifier ?? control.clusterIdentifier,
            skipAwait,
            sameAsControlPlane: true,
        };
    }
    const reach = { ...(context ? { context } : {}), clusterIdentifier: plane.cluster.clusterIdentifier ?? clusterName, skipAwait };
    return settings.computePlaneKubeconfigNames.includes(clusterName)
        ? { kind: "stack-secret", key: "computePlaneKubeconfigs", clusterName, ...reach }
        : { kind: "default-kubeconfig", ...reach };
}
