import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";

export interface NamespaceSpec {
    readonly name: string;
    readonly labels?: Readonly<Record<string, string>>;
    /** Left in the cluster on destroy (and on removal from the stack). */
    readonly retainOnDelete?: boolean;
    /** Another controller rewrites its labels and annotations; do not fight it over them. */
    readonly sharedMetadata?: boolean;
}

export interface NamespacesArgs {
    readonly namespaces: readonly NamespaceSpec[];
}

/**
 * Namespaces the stack owns, never Helm's `createNamespace`: Pulumi deletes them on destroy,
 * after every release in them, and orders installs after them.
 */
export class Namespaces extends pulumi.ComponentResource {
    /** Each namespace, by name. */
    readonly byName: Readonly<Record<string, k8s.core.v1.Namespace>>;

    constructor(name: string, args: NamespacesArgs, opts?: pulumi.ComponentResourceOptions) {
        super("nvcf:kubernetes:Namespaces", name, {}, opts);
        const byName: Record<string, k8s.core.v1.Namespace> = {};
        for (const spec of args.namespaces) {
            byName[spec.name] = new k8s.core.v1.Namespace(
                `${name}-${spec.name}`,
                {
                    metadata: {
                        name: spec.name,
                        labels: { "app.kubernetes.io/managed-by": "pulumi", ...spec.labels },
                    },
                },
                {
                    parent: this,
                    retainOnDelete: spec.retainOnDelete,
                    ...(spec.sharedMetadata ? { ignoreChanges: ["metadata.labels", "metadata.annotations"] } : {}),
                },
            );
        }
        this.byName = byName;
        this.registerOutputs({ names: Object.keys(byName) });
    }
}
