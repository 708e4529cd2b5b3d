import type * as pulumi from "@pulumi/pulumi";
import { ApiError, deleteCluster, Endpoint, getCluster, listClusters, mintAdminToken, putJwks, registerCluster } from "../../lib/icms/icms";
import { kubeAccessOf, kubeconfigMap, type KubeconfigSource } from "../../lib/cluster-access/reach";
import { ClusterIdentity, discoverClusterIdentity, discoverFromIssuer } from "../../lib/cluster-access/oidc-discovery";
import { defineProvider, UNKNOWN_INPUT, type CheckFailure, type ProviderContext } from "./kit";

/** What the registration is declared with. No secret is an input: they come from `configure`. */
export interface ClusterRegistrationInputs {
    readonly clusterName: string;
    readonly ncaId: string;
    readonly region: string;
    readonly cloudProvider: string;
    /** ICMS (`sis.<domain>`) as this program reaches it. */
    readonly icmsUrl: string;
    readonly icmsHostHeader?: string;
    /** API Keys, where the admin token is minted when no token is configured. */
    readonly apiKeysUrl: string;
    readonly apiKeysHostHeader?: string;
    readonly kubeconfigSource: KubeconfigSource;
    readonly kubeContext?: string;
    /** With `oidc-issuer`: the issuer whose keys register the cluster. */
    readonly oidcIssuerUrl?: string;
    readonly timeoutSeconds: number;
    readonly retries: number;
}

export interface ClusterRegistrationOutputs extends ClusterRegistrationInputs {
    readonly clusterId: string;
    readonly clusterGroupId: string;
    readonly oidcIssuer: string;
    /** sha256 of the registered JWKS: ICMS's read-back has no JWKS, so state keeps its hash for drift detection. */
    readonly jwksHash: string;
}

/**
 * What `nvcf-cli cluster register` and `cluster delete` do, as a Pulumi resource: discover the
 * GPU cluster's issuer and JWKS, get an admin token, register with ICMS (adopting an existing
 * registration of the same name, as `--ignore-existing` does), rotate the JWKS when it changes,
 * and deregister on delete.
 */
export const ClusterRegistrationProvider = defineProvider<ClusterRegistrationInputs, ClusterRegistrationOutputs>({
    // Every failure names the cluster and the operation.
    describe: (inputs) => `cluster registration of ${inputs.clusterName}`,
    operations: { create: "register", delete: "deregister" },
    hint,
    secrets: ["nvcfAdminToken"],
    configured: (ctx) => {
        // A malformed secret fails here, before any ICMS call.
        kubeconfigMap(ctx.kubeSecrets.computePlaneKubeconfigs);
    },
    check: (news) => {
        const failures: CheckFailure[] = [];
        const known = (v: unknown) => v !== undefined && v !== UNKNOWN_INPUT;
        if (known(news.clusterName) && !/^[a-z0-9]([-a-z0-9.]{0,30}[a-z0-9])?$/.test(news.clusterName)) {
            failures.push({ property: "clusterName", reason: "an RFC 1123 name of at most 32 characters" });
        }
        if (known(news.ncaId) && !news.ncaId) failures.push({ property: "ncaId", reason: "must not be empty" });
        for (const key of ["icmsUrl", "apiKeysUrl"] as const) {
            if (known(news[key]) && !/^https?:\/\//.test(news[key])) failures.push({ property: key, reason: "an http(s) URL" });
        }
        return failures;
    },
    // A change of these is a new registration, not an update; a new row with the same signing keys
    // is refused (409) until the old one is gone, so the old one is deleted first.
    replaces: ["clusterName", "ncaId", "region", "cloudProvider"],
    changes: async (olds, news, ctx) => {
        const identity = await identityOf(news, ctx);
        const rotated = identity.jwksHash !== olds.jwksHash || identity.issuer !== olds.oidcIssuer;
        return rotated ? { changes: true, detailedDiff: { jwksHash: { kind: "update" as const, inputDiff: false } } } : false;
    },
    id: (_inputs, outs) => outs.clusterId,
    create: async (inputs, ctx) => {
        const identity = await identityOf(inputs, ctx);
        const token = await tokenFor(inputs, ctx);
        const icms = endpoint(inputs, "icms", ctx);
        let ids;
        try {
            ids = await registerCluster(icms, token, { ...inputs, jwks: identity.jwks, oidcIssuer: identity.issuer });
        } catch (err) {
            // A rerun, or a cluster registered by hand: ICMS answers 400 "already exists"; adopt it and refresh its JWKS.
            if (!(err instanceof ApiError && err.status === 400 && /already exists/i.test(err.body))) throw err;
            const existing = (await listClusters(icms, token, inputs.ncaId)).find((c) => c.clusterName === inputs.clusterName);
            if (!existing)
                throw new Error(`ICMS says the cluster already exists, but its listing has no ${inputs.clusterName}`, { cause: err });
            await putJwks(icms, token, existing.clusterId, identity.jwks, identity.issuer);
            if (!existing.clusterGroupId)
                throw new Error(`ICMS lists ${inputs.clusterName} (${existing.clusterId}) without a cluster group`, { cause: err });
            ids = { clusterId: existing.clusterId, clusterGroupId: existing.clusterGroupId };
        }
        return { ...inputs, ...ids, oidcIssuer: identity.issuer, jwksHash: identity.jwksHash };
    },
    importRefused: "importing a cluster registration is not supported; declare it instead",
    read: async (id, props, ctx) => {
        const token = await tokenFor(props, ctx);
        const record = await getCluster(endpoint(props, "icms", ctx), token, props.ncaId, id);
        // Gone from ICMS: `pulumi refresh` shows the drift.
        if (!record) return undefined;
        return { ...props, clusterGroupId: record.clusterGroupId ?? props.clusterGroupId };
    },
    update: async (id, olds, news, ctx) => {
        const identity = await identityOf(news, ctx);
        if (identity.jwksHash !== olds.jwksHash || identity.issuer !== olds.oidcIssuer) {
            // A rotated service-account key: PUT the new JWKS, keep the cluster ID.
            await putJwks(endpoint(news, "icms", ctx), await tokenFor(news, ctx), id, identity.jwks, identity.issuer);
        }
        return {
            ...news,
            clusterId: olds.clusterId,
            clusterGroupId: olds.clusterGroupId,
            oidcIssuer: identity.issuer,
            jwksHash: identity.jwksHash,
        };
    },
    delete: async (id, props, ctx) => {
        try {
            await deleteCluster(endpoint(props, "icms", ctx), await tokenFor(props, ctx), props.ncaId, id);
        } catch (err) {
            // ICMS answers 409 for a cluster of another account too (ClusterTerminateService.validateNcaIdToDelete).
            if (err instanceof ApiError && err.status === 409 && /different ncaId/i.test(err.body)) {
                throw new Error(
                    `ICMS says the cluster is registered under another NCA ID than ${props.ncaId} (${err.message}). ` +
                        "Check registration.ncaId (the account that registered it), or deregister it from that account",
                    { cause: err },
                );
            }
            if (err instanceof ApiError && err.status === 409) {
                throw new Error(
                    `ICMS still has active instances on it (${err.message}). Undeploy the functions and tasks ` +
                        "running on this cluster (or let nvca-operator's uninstall drain them), then run `pulumi destroy` again",
                    { cause: err },
                );
            }
            throw err;
        }
    },
});

/** The pause between retries; tests shorten it. */
const retryDelayMs = (ctx: ProviderContext) => ctx.options.retryDelayMs ?? 1000;

function endpoint(inputs: ClusterRegistrationInputs, which: "icms" | "apiKeys", ctx: ProviderContext): Endpoint {
    return {
        url: which === "icms" ? inputs.icmsUrl : inputs.apiKeysUrl,
        hostHeader: which === "icms" ? inputs.icmsHostHeader : inputs.apiKeysHostHeader,
        timeoutMs: inputs.timeoutSeconds * 1000,
        retries: inputs.retries,
        retryDelayMs: retryDelayMs(ctx),
    };
}

/** The configured token, else a fresh admin JWT for this one operation (they expire). */
async function tokenFor(inputs: ClusterRegistrationInputs, ctx: ProviderContext): Promise<string> {
    return ctx.secret("nvcfAdminToken") ?? mintAdminToken(endpoint(inputs, "apiKeys", ctx));
}

async function identityOf(inputs: ClusterRegistrationInputs, ctx: ProviderContext): Promise<ClusterIdentity> {
    const options = { timeoutMs: inputs.timeoutSeconds * 1000, retries: inputs.retries, retryDelayMs: retryDelayMs(ctx) };
    if (inputs.kubeconfigSource === "oidc-issuer") {
        if (!inputs.oidcIssuerUrl) throw new Error("no OIDC issuer URL to discover the cluster's keys from");
        return discoverFromIssuer(inputs.oidcIssuerUrl, options);
    }
    const reach = { kubeconfigSource: inputs.kubeconfigSource, clusterName: inputs.clusterName, kubeContext: inputs.kubeContext };
    return discoverClusterIdentity(kubeAccessOf(reach, ctx.kubeSecrets), options);
}

/** What an ICMS status means for the user, where the status alone says little. */
function hint(err: unknown): string {
    if (!(err instanceof ApiError)) return "";
    if (err.status === 412) return "ICMS refuses names, groups or descriptions over 32 characters. ";
    if (err.status === 401 || err.status === 403) return "the token lacks the cluster-management scope. ";
    if (err.status === 409 && /JWKS/i.test(err.body)) {
        return "another registration holds these signing keys: deregister it first (a cluster re-registered under a new name needs its old row deleted). ";
    }
    return "";
}

/** The provider's instances, as tests name their type. */
export type ClusterRegistrationProvider = InstanceType<typeof ClusterRegistrationProvider>;

export type ClusterRegistrationArgs = { [K in keyof ClusterRegistrationInputs]: pulumi.Input<ClusterRegistrationInputs[K]> };
