import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import type { EnvironmentSettings } from "../settings/schema";
import { AUTH_DELEGATOR, STACK_RESOURCE } from "../settings/upstream";
import { stackSpec } from "./stack-spec";

export interface EnvironmentArgs {
    readonly settings: EnvironmentSettings;
    /** Its namespace: the fleet's Namespace resource, or the name of one that exists. */
    readonly namespace: pulumi.Input<string>;
    /** The operator's release: the Stack's CRD is installed with it. */
    readonly operator: pulumi.Resource;
}

/**
 * One environment reconciled by the operator: the workspace's ServiceAccount, its bindings, and
 * the pulumi.com/v1 Stack that runs the root program's stack from git at the pinned revision.
 * The environment's name names all three (the Stack's is what prerequisites refer to).
 */
export class Environment extends pulumi.ComponentResource {
    readonly stack: k8s.apiextensions.CustomResource;
    readonly serviceAccount: k8s.core.v1.ServiceAccount;

    constructor(name: string, args: EnvironmentArgs, opts?: pulumi.ComponentResourceOptions) {
        super("nvcf:fleet:Environment", name, {}, opts);
        const { settings } = args;
        this.serviceAccount = new k8s.core.v1.ServiceAccount(
            name,
            { metadata: { name, namespace: args.namespace, annotations: settings.serviceAccount.annotations } },
            { parent: this },
        );
        // system:auth-delegator lets the workspace's agent check its callers with the API server
        // (docs/migration.md); cluster-admin, on request, is what the program's own preflight asks.
        const roles = [AUTH_DELEGATOR, ...(settings.serviceAccount.clusterAdmin ? ["cluster-admin"] : [])];
        const bindings = roles.map(
            (role) =>
                new k8s.rbac.v1.ClusterRoleBinding(
                    `${name}-${role.replace(/^system:/, "")}`,
                    {
                        metadata: { name: pulumi.interpolate`${args.namespace}:${name}:${role}` },
                        roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: role },
                        subjects: [{ kind: "ServiceAccount", name: this.serviceAccount.metadata.name, namespace: args.namespace }],
                    },
                    { parent: this },
                ),
        );
        this.stack = new k8s.apiextensions.CustomResource(
            name,
            {
                apiVersion: STACK_RESOURCE.apiVersion,
                kind: STACK_RESOURCE.kind,
                metadata: { name, namespace: args.namespace },
                spec: stackSpec(settings, name),
            },
            // The workspace starts as soon as the Stack exists: its account and rights come first.
            { parent: this, dependsOn: [args.operator, this.serviceAccount, ...bindings] },
        );
        this.registerOutputs({ stack: this.stack.metadata.name, serviceAccount: this.serviceAccount.metadata.name });
    }
}
