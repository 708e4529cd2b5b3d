import * as pulumi from "@pulumi/pulumi";
import type { ControlPlaneConfig } from "../../../config/schema";

/** Chart values: plain data whose leaves may be secret Outputs. */
export type Values = Record<string, unknown>;

/** What a values builder may read: the environment and the secrets the program derived. */
export interface ValuesContext {
    readonly cp: ControlPlaneConfig;
    /** `global.imagePullSecrets` as the charts receive it (including the program's own pull secret). */
    readonly imagePullSecrets: readonly { name: string }[];
    /** The registries the default account gets credentials for. */
    readonly accountRegistries: { readonly containerRegistryHostname: string; readonly helmRegistryHostname: string };
    readonly secrets: {
        /** One password for both Cassandra credentials (gotcha 8). */
        readonly cassandraPassword: pulumi.Input<string>;
        /** base64("$oauthtoken:<key>") for the worker sidecars, or "" when none is configured. */
        readonly sidecarCredential: pulumi.Input<string>;
        /** base64("$oauthtoken:<key>") for the default account's registries, when configured. */
        readonly accountCredential?: pulumi.Input<string>;
    };
}
