import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";

export interface PullSecretsArgs {
    /** The secret's name in every namespace. */
    readonly name: string;
    /** The registry host the credential is for. */
    readonly server: string;
    readonly username: string;
    readonly password: pulumi.Output<string>;
    readonly namespaces: Readonly<Record<string, k8s.core.v1.Namespace>>;
}

/** The `.dockerconfigjson` of one registry credential; a secret Output throughout. */
export function dockerConfigJson(server: string, username: string, password: pulumi.Output<string>): pulumi.Output<string> {
    return pulumi.secret(
        password.apply((p) =>
            JSON.stringify({
                auths: {
                    [server]: { username, password: p, auth: Buffer.from(`${username}:${p}`).toString("base64") },
                },
            }),
        ),
    );
}

/** A `kubernetes.io/dockerconfigjson` Secret in each namespace, as the runbook creates by hand. */
export class PullSecrets extends pulumi.ComponentResource {
    /** The pull secret in each namespace, by namespace. */
    readonly byNamespace: Readonly<Record<string, k8s.core.v1.Secret>>;

    constructor(name: string, args: PullSecretsArgs, opts?: pulumi.ComponentResourceOptions) {
        super("nvcf:kubernetes:PullSecrets", name, {}, opts);
        const config = dockerConfigJson(args.server, args.username, args.password);
        const byNamespace: Record<string, k8s.core.v1.Secret> = {};
        for (const [namespace, ns] of Object.entries(args.namespaces)) {
            byNamespace[namespace] = new k8s.core.v1.Secret(
                `${name}-${namespace}`,
                {
                    metadata: { name: args.name, namespace: ns.metadata.name },
                    type: "kubernetes.io/dockerconfigjson",
                    stringData: { ".dockerconfigjson": config },
                },
                // Deleted explicitly, never left to its namespace: a retained namespace must not keep a live credential.
                { parent: this, dependsOn: [ns] },
            );
        }
        this.byNamespace = byNamespace;
        this.registerOutputs({ namespaces: Object.keys(byNamespace) });
    }
}
