import * as pulumi from "@pulumi/pulumi";
import type { ControlPlaneConfig } from "../../../config/schema";

/** Chart values: plain data whose leaves may be secret Outputs. */
export type Values = Record<string, unknown>;

/** An HTTP endpoint of a Service in the release's namespace. */
export interface ServiceEndpoint {
    readonly service: string;
    readonly port: number;
    readonly path: string;
}

/** How NVCF's UI checks a release (one item of its `controlPlane.components` list). */
export interface HealthCheck {
    /** The component's name in the UI, when it is not the release's. */
    readonly component?: string;
    /** Its namespace, when it is not the release's. */
    readonly namespace?: string;
    readonly endpoints?: readonly ServiceEndpoint[];
    readonly workloads?: readonly { readonly name: string; readonly type: "deployment" | "statefulset" }[];
}

/** A release's UI health check, resolved to its namespace. */
export interface ReleaseHealth {
    readonly release: string;
    readonly namespace: string;
    readonly check: HealthCheck;
}

/** What a values builder may read: the environment, the catalog's facts, and the secrets the program derived. */
export interface ValuesContext {
    readonly cp: ControlPlaneConfig;
    /** `<service>.<namespace>.svc.cluster.local:<port>` of a release's Service, from the catalog. */
    readonly address: (release: string) => string;
    /** The UI health checks of the enabled releases, by release name. */
    readonly health: ReadonlyMap<string, ReleaseHealth>;
    /** `global.imagePullSecrets` as the charts receive it (including the program's own pull secret). */
    readonly imagePullSecrets: readonly { name: string }[];
    /** The registries the default account gets credentials for. */
    readonly accountRegistries: { readonly containerRegistryHostname: string; readonly helmRegistryHostname: string };
    readonly secrets: {
        /** One password for both Cassandra credentials: the chart requires them equal, and both are write-once. */
        readonly cassandraPassword: pulumi.Input<string>;
        /** base64("$oauthtoken:<key>") for the worker sidecars, or "" when none is configured. */
        readonly sidecarCredential: pulumi.Input<string>;
        /** base64("$oauthtoken:<key>") for the default account's registries, when configured. */
        readonly accountCredential?: pulumi.Input<string>;
    };
}
