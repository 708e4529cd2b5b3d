import { PROJECT } from "../../config/model/project";
import type { KubeAccess } from "./access";

/** Where a dynamic provider finds a cluster's kubeconfig. */
export type KubeconfigSource =
    /** The control plane's: the `kubeconfig` secret, else $KUBECONFIG/~/.kube/config. */
    | "control-plane"
    /** The cluster's entry in the `computePlaneKubeconfigs` secret. */
    | "compute-plane"
    /** $KUBECONFIG/~/.kube/config. */
    | "default"
    /** No kubeconfig: the public issuer in `oidcIssuerUrl` (EKS). */
    | "oidc-issuer";

/** How a dynamic provider reaches a cluster: where its kubeconfig is, never the kubeconfig's secret text. */
export interface ClusterReach {
    readonly kubeconfigSource: KubeconfigSource;
    /** The compute plane's name, for its `computePlaneKubeconfigs` entry. */
    readonly clusterName?: string;
    readonly kubeContext?: string;
    /** A kubeconfig the program built (EKS: endpoint, CA, exec credential; no secret in it). */
    readonly kubeconfig?: string;
}

/** The stack secrets a provider's `configure` reads, in the provider's own process. */
export interface KubeSecrets {
    readonly kubeconfig?: string;
    readonly computePlaneKubeconfigs?: string;
}

/** The kubeconfig a reach names, resolved from the secrets at run time. */
export function kubeAccessOf(reach: ClusterReach, secrets: KubeSecrets): KubeAccess {
    const context = reach.kubeContext || undefined;
    if (reach.kubeconfig !== undefined)
        return { kubeconfig: reach.kubeconfig, context, source: "the kubeconfig built for the EKS cluster" };
    switch (reach.kubeconfigSource) {
        case "control-plane":
            return { kubeconfig: secrets.kubeconfig, context, source: `the secret ${PROJECT}:kubeconfig` };
        case "compute-plane": {
            const kubeconfig = kubeconfigMap(secrets.computePlaneKubeconfigs)?.[reach.clusterName ?? ""];
            if (!kubeconfig) throw new Error(`computePlaneKubeconfigs has no entry for ${reach.clusterName}`);
            return { kubeconfig, context, source: `the secret ${PROJECT}:computePlaneKubeconfigs entry ${reach.clusterName}` };
        }
        default:
            return { context };
    }
}

/**
 * The `computePlaneKubeconfigs` secret as a map. The config check refuses a malformed one before
 * `up`; this one still never lets JSON.parse's message (which quotes the text) out.
 */
export function kubeconfigMap(text: string | undefined): Record<string, string> | undefined {
    if (!text) return undefined;
    let parsed: unknown;
    try {
        parsed = JSON.parse(text);
    } catch {
        throw new Error(
            `the secret ${PROJECT}:computePlaneKubeconfigs is not a JSON object; set it with \`pulumi config set --secret --path 'computePlaneKubeconfigs.<cluster>'\``,
        );
    }
    if (!parsed || typeof parsed !== "object" || Array.isArray(parsed) || !Object.values(parsed).every((v) => typeof v === "string")) {
        throw new Error(`the secret ${PROJECT}:computePlaneKubeconfigs is not an object of kubeconfig texts by cluster name`);
    }
    return parsed as Record<string, string>;
}
