import type { ConfigProblem } from "../model/errors";
import type { ComputePlaneRule } from "./rule";

/** Each GPU cluster is reached one way: its EKS name alone, the control plane's cluster, a context or a kubeconfig. */
export const computePlaneReach: ComputePlaneRule = (plane, key, settings) => {
    const problems: ConfigProblem[] = [];
    const hasKubeconfig = settings.computePlaneKubeconfigNames.includes(plane.clusterName);
    if (plane.cluster.eks && (plane.cluster.sameAsControlPlane || plane.cluster.context || hasKubeconfig)) {
        problems.push({
            key: key("cluster.eks"),
            message: "an EKS cluster is reached through its name alone: no sameAsControlPlane, context or kubeconfig",
        });
    }
    if (plane.cluster.sameAsControlPlane && (plane.cluster.context || hasKubeconfig)) {
        problems.push({
            key: key("cluster.sameAsControlPlane"),
            message: "a compute plane on the control plane's cluster takes no context or kubeconfig of its own",
            given: true,
        });
    }
    if (!plane.cluster.sameAsControlPlane && !plane.cluster.context && !hasKubeconfig && !plane.cluster.eks) {
        // Never the ambient context: it may be another cluster, whose issuer and JWKS would be registered.
        problems.push({
            key: key("cluster"),
            message: `says nothing about how to reach the GPU cluster ${plane.clusterName}`,
            allowed:
                "sameAsControlPlane: true, a context, eks: {name, region}, or a kubeconfig under computePlaneKubeconfigs." +
                plane.clusterName,
        });
    }
    return problems;
};
