import * as pulumi from "@pulumi/pulumi";
import * as random from "@pulumi/random";
import type { Settings } from "../../config/load";

/**
 * A raw docker `auth` string, base64("<user>:<key>"): the format of the account-bootstrap
 * registry credential and the sidecar secret. Not a dockerconfigjson (gotcha 9).
 */
export function dockerAuth(username: string, key: pulumi.Output<string>): pulumi.Output<string> {
    return pulumi.secret(key.apply((k) => Buffer.from(`${username}:${k}`).toString("base64")));
}

export interface ControlPlaneCredentials {
    readonly cassandraPassword: pulumi.Output<string>;
    readonly sidecarCredential: pulumi.Input<string>;
    readonly accountCredential?: pulumi.Output<string>;
}

/** The secrets-file values, derived from stack secrets. */
export function controlPlaneCredentials(
    name: string,
    settings: Settings,
    parent: pulumi.Resource,
): ControlPlaneCredentials {
    const { secrets, registry } = settings;
    // Gotcha 8: one password for both Cassandra credentials, generated once and kept in state
    // (both are write-once: changing it after the first install has no effect on the database).
    const cassandraPassword = pulumi.secret(
        secrets.cassandraPassword ??
            new random.RandomPassword(`${name}-cassandra-password`, { length: 32, special: false }, { parent }).result,
    );
    const sidecarKey = secrets.sidecarRegistryKey ?? secrets.ngcApiKey;
    const accountKey = secrets.accountRegistryKey ?? secrets.ngcApiKey;
    return {
        cassandraPassword,
        sidecarCredential: sidecarKey ? dockerAuth(registry.account.username, sidecarKey) : "",
        ...(accountKey ? { accountCredential: dockerAuth(registry.account.username, accountKey) } : {}),
    };
}
