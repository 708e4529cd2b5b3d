import * as k8s from "@pulumi/kubernetes";
import type * as pulumi from "@pulumi/pulumi";

/** The control plane's ClusterPolicy; a compute plane's is `<this>-<clusterName>`. */
export const PULL_SECRET_POLICY = "nvcf-pull-secret";

export interface PullSecretPolicyArgs {
    /** The ClusterPolicy's name: one per plane, so planes sharing a cluster never clash. */
    readonly policyName: string;
    /** The pull secret's name, the same in every namespace. */
    readonly secretName: string;
    /** The pull secret in each namespace the policy covers. */
    readonly secrets: Readonly<Record<string, k8s.core.v1.Secret>>;
    /** What serves the ClusterPolicy kind: the stack's Kyverno release, when it installs one. */
    readonly kyverno: readonly pulumi.Resource[];
}

/**
 * The Kyverno ClusterPolicy of NVIDIA's recommended pull-secret mode: every Pod admitted in the
 * stack's namespaces gets the stack's pull secret in `imagePullSecrets`, whatever its chart does
 * with `global.imagePullSecrets` (the upstream NATS and cert-manager images ignore it).
 * `imagePullSecrets` merges by name, so a pod keeps its own secrets. It depends on the secrets,
 * so destroy deletes it before them and before their namespaces.
 */
export function pullSecretPolicy(
    logicalName: string,
    args: PullSecretPolicyArgs,
    opts: Omit<pulumi.CustomResourceOptions, "dependsOn">,
): k8s.apiextensions.CustomResource {
    return new k8s.apiextensions.CustomResource(
        logicalName,
        {
            apiVersion: "kyverno.io/v1",
            kind: "ClusterPolicy",
            metadata: { name: args.policyName, labels: { "app.kubernetes.io/managed-by": "pulumi" } },
            spec: {
                // Admission only: a running pod's spec cannot change, so a background scan has nothing to do.
                background: false,
                rules: [
                    {
                        name: "add-image-pull-secret",
                        match: { any: [{ resources: { kinds: ["Pod"], namespaces: Object.keys(args.secrets) } }] },
                        mutate: { patchStrategicMerge: { spec: { imagePullSecrets: [{ name: args.secretName }] } } },
                    },
                ],
            },
        },
        { ...opts, dependsOn: [...Object.values(args.secrets), ...args.kyverno] },
    );
}
