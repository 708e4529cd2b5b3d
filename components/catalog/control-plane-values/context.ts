import * as pulumi from "@pulumi/pulumi";
import type { ControlPlaneConfig } from "../../../config/model/schema";
import type { HealthCheck } from "../../release/entry";

export type { HealthCheck, Values } from "../../release/entry";

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
