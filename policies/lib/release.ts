import type { ResourceValidationArgs } from "@pulumi/policy";
import { at, isList, isRecord, plain, UNKNOWN, type Plain, type PlainRecord, type Unknown } from "./known";

export const RELEASE_TYPE = "kubernetes:helm.sh/v3:Release";

/** Release names this pack knows: the bundle's fixed names (the program rejects any other). */
export const RELEASES = {
    cassandra: "cassandra",
    openbao: "openbao-server",
    api: "api",
    nats: "nats",
    natsAuthCallout: "nats-auth-callout-service",
    adminIssuerProxy: "admin-issuer-proxy",
    certManager: "cert-manager",
    nvcaOperator: "nvca-operator",
    smbCsiDriver: "csi-driver-smb",
    kaiScheduler: "kai-scheduler",
    dynamoOperator: "dynamo-operator",
} as const;

/** A Helm release's inputs as plain data (unknown values marked). */
export interface Release {
    readonly props: PlainRecord;
    /** The Helm release name, not the Pulumi resource name. */
    readonly name: Plain | undefined;
    readonly values: Plain | undefined;
}

export function releaseOf(type: string, props: Plain): Release | undefined {
    if (type !== RELEASE_TYPE || !isRecord(props)) return undefined;
    return { props, name: at(props, "name"), values: at(props, "values") };
}

/** The release a resource validation is about, or undefined for any other resource. */
export function releaseFromArgs(args: ResourceValidationArgs): Release | undefined {
    return args.type === RELEASE_TYPE ? releaseOf(args.type, plain(args.props)) : undefined;
}

/** The name to show in messages. */
export function label(release: Release): string {
    return typeof release.name === "string" ? `Helm release "${release.name}"` : "Helm release";
}

/**
 * The `openbao.migrations.env` entry named `name`: undefined when there is none, UNKNOWN when the
 * list, or an entry that could be it, is not known yet.
 */
export function migrationEnvEntry(values: Plain | undefined, name: string): PlainRecord | Unknown | undefined {
    const env = at(values, "openbao", "migrations", "env");
    if (env === UNKNOWN) return UNKNOWN;
    if (!isList(env)) return undefined;
    let maybe = false;
    for (const entry of env) {
        const entryName = at(entry, "name");
        if (entryName === name && isRecord(entry)) return entry;
        if (entryName === UNKNOWN) maybe = true;
    }
    return maybe ? UNKNOWN : undefined;
}

/** The value of that entry (UNKNOWN or undefined as above, or when the entry has no value). */
export function migrationEnv(values: Plain | undefined, name: string): Plain | undefined {
    return at(migrationEnvEntry(values, name), "value");
}
