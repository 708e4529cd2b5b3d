import * as pulumi from "@pulumi/pulumi";
import * as random from "@pulumi/random";

/**
 * A raw docker `auth` string, base64("<user>:<key>"): the format of the account-bootstrap
 * registry credential and the sidecar secret. Not a dockerconfigjson: the charts expect base64("$oauthtoken:<key>").
 */
export function dockerAuth(username: string, key: pulumi.Output<string>): pulumi.Output<string> {
    return pulumi.secret(key.apply((k) => Buffer.from(`${username}:${k}`).toString("base64")));
}

export interface ControlPlaneCredentials {
    readonly cassandraPassword: pulumi.Output<string>;
    readonly sidecarCredential: pulumi.Input<string>;
    readonly accountCredential?: pulumi.Output<string>;
}

/** The stack secrets the credentials are made from; each optional. */
export interface CredentialSecrets {
    readonly ngcApiKey?: pulumi.Output<string>;
    readonly cassandraPassword?: pulumi.Output<string>;
    readonly sidecarRegistryKey?: pulumi.Output<string>;
    readonly accountRegistryKey?: pulumi.Output<string>;
}

/** The secrets-file values, derived from stack secrets; `username` is the default account's registry user. */
export function controlPlaneCredentials(
    name: string,
    secrets: CredentialSecrets,
    username: string,
    parent: pulumi.Resource,
): ControlPlaneCredentials {
    // The two Cassandra passwords must be equal and are write-once: one password, generated once
    // and kept in state (changing it after the first install has no effect on the database).
    const cassandraPassword = pulumi.secret(
        secrets.cassandraPassword ??
            new random.RandomPassword(`${name}-cassandra-password`, { length: 32, special: false }, { parent }).result,
    );
    const sidecarKey = secrets.sidecarRegistryKey ?? secrets.ngcApiKey;
    const accountKey = secrets.accountRegistryKey ?? secrets.ngcApiKey;
    return {
        cassandraPassword,
        sidecarCredential: sidecarKey ? dockerAuth(username, sidecarKey) : "",
        ...(accountKey ? { accountCredential: dockerAuth(username, accountKey) } : {}),
    };
}
