import * as pulumi from "@pulumi/pulumi";
import { changedInputs, secretConfig, UNKNOWN_INPUT, readKubeSecrets } from "./base";
import { ApiError, deleteCluster, Endpoint, getCluster, listClusters, mintAdminToken, putJwks, registerCluster } from "./icms";
import { kubeAccessOf, kubeconfigMap, type KubeconfigSource, type KubeSecrets } from "../../lib/cluster-access/reach";
import { ClusterIdentity, discoverClusterIdentity, discoverFromIssuer } from "./oidc-discovery";

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

/** Inputs whose change is a new registration, not an update. */
const REPLACING = ["clusterName", "ncaId", "region", "cloudProvider"] as const;

export interface ProviderOptions {
    /** Pause between retries; tests shorten it. */
    readonly retryDelayMs?: number;
}

/**
 * What `nvcf-cli cluster register` and `cluster delete` do, as a Pulumi resource: discover the
 * GPU cluster's issuer and JWKS, get an admin token, register with ICMS (adopting an existing
 * registration of the same name, as `--ignore-existing` does), rotate the JWKS when it changes,
 * and deregister on delete.
 */
export class ClusterRegistrationProvider implements pulumi.dynamic.ResourceProvider<ClusterRegistrationInputs, ClusterRegistrationOutputs> {
    private readonly retryDelayMs: number;
    // Set by configure() in the provider's own process; never serialized with the program.
    private adminToken?: string;
    private kubeSecrets: KubeSecrets = {};

    constructor(options: ProviderOptions = {}) {
        this.retryDelayMs = options.retryDelayMs ?? 1000;
    }

    async configure(req: pulumi.dynamic.ConfigureRequest): Promise<void> {
        this.adminToken = secretConfig(req, "nvcfAdminToken");
        this.kubeSecrets = readKubeSecrets(req);
        // A malformed secret fails here, before any ICMS call.
        kubeconfigMap(this.kubeSecrets.computePlaneKubeconfigs);
    }

    async check(
        _olds: ClusterRegistrationInputs,
        news: ClusterRegistrationInputs,
    ): Promise<pulumi.dynamic.CheckResult<ClusterRegistrationInputs>> {
        const failures: pulumi.dynamic.CheckFailure[] = [];
        const known = (v: unknown) => v !== undefined && v !== UNKNOWN_INPUT;
        if (known(news.clusterName) && !/^[a-z0-9]([-a-z0-9.]{0,30}[a-z0-9])?$/.test(news.clusterName)) {
            failures.push({ property: "clusterName", reason: "an RFC 1123 name of at most 32 characters" });
        }
        if (known(news.ncaId) && !news.ncaId) failures.push({ property: "ncaId", reason: "must not be empty" });
        for (const key of ["icmsUrl", "apiKeysUrl"] as const) {
            if (known(news[key]) && !/^https?:\/\//.test(news[key])) failures.push({ property: key, reason: "an http(s) URL" });
        }
        return { inputs: news, failures };
    }

    async diff(_id: string, olds: ClusterRegistrationOutputs, news: ClusterRegistrationInputs): Promise<pulumi.dynamic.DiffResult> {
        const replaces = REPLACING.filter((k) => olds[k] !== news[k]);
        if (replaces.length > 0) {
            // A new row with the same signing keys is refused (409) until the old one is gone.
            return { changes: true, replaces: [...replaces], deleteBeforeReplace: true };
        }
        const changed = changedInputs(olds, news);
        const identity = await this.identity(news);
        const rotated = identity.jwksHash !== olds.jwksHash || identity.issuer !== olds.oidcIssuer;
        return {
            changes: changed.length > 0 || rotated,
            ...(rotated ? { detailedDiff: { jwksHash: { kind: "update" as const, inputDiff: false } } } : {}),
        };
    }

    async create(inputs: ClusterRegistrationInputs): Promise<pulumi.dynamic.CreateResult<ClusterRegistrationOutputs>> {
        return this.annotate(inputs, "register", async () => {
            const identity = await this.identity(inputs);
            const token = await this.token(inputs);
            const icms = this.endpoint(inputs, "icms");
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
            return { id: ids.clusterId, outs: { ...inputs, ...ids, oidcIssuer: identity.issuer, jwksHash: identity.jwksHash } };
        });
    }

    async read(id: string, props?: ClusterRegistrationOutputs): Promise<pulumi.dynamic.ReadResult<ClusterRegistrationOutputs>> {
        if (!props) throw new Error(`cluster registration ${id}: importing a registration is not supported; declare it instead`);
        return this.annotate(props, "read", async () => {
            const token = await this.token(props);
            const record = await getCluster(this.endpoint(props, "icms"), token, props.ncaId, id);
            // Gone from ICMS: an empty ID tells the engine, so `pulumi refresh` shows the drift.
            if (!record) return { id: "", props: undefined };
            return { id, props: { ...props, clusterGroupId: record.clusterGroupId ?? props.clusterGroupId } };
        });
    }

    async update(
        id: string,
        olds: ClusterRegistrationOutputs,
        news: ClusterRegistrationInputs,
    ): Promise<pulumi.dynamic.UpdateResult<ClusterRegistrationOutputs>> {
        return this.annotate(news, "update", async () => {
            const identity = await this.identity(news);
            if (identity.jwksHash !== olds.jwksHash || identity.issuer !== olds.oidcIssuer) {
                // A rotated service-account key: PUT the new JWKS, keep the cluster ID.
                await putJwks(this.endpoint(news, "icms"), await this.token(news), id, identity.jwks, identity.issuer);
            }
            return {
                outs: {
                    ...news,
                    clusterId: olds.clusterId,
                    clusterGroupId: olds.clusterGroupId,
                    oidcIssuer: identity.issuer,
                    jwksHash: identity.jwksHash,
                },
            };
        });
    }

    async delete(id: string, props: ClusterRegistrationOutputs): Promise<void> {
        await this.annotate(props, "deregister", async () => {
            try {
                await deleteCluster(this.endpoint(props, "icms"), await this.token(props), props.ncaId, id);
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
        });
    }

    private endpoint(inputs: ClusterRegistrationInputs, which: "icms" | "apiKeys"): Endpoint {
        return {
            url: which === "icms" ? inputs.icmsUrl : inputs.apiKeysUrl,
            hostHeader: which === "icms" ? inputs.icmsHostHeader : inputs.apiKeysHostHeader,
            timeoutMs: inputs.timeoutSeconds * 1000,
            retries: inputs.retries,
            retryDelayMs: this.retryDelayMs,
        };
    }

    /** The configured token, else a fresh admin JWT for this one operation (they expire). */
    private async token(inputs: ClusterRegistrationInputs): Promise<string> {
        return this.adminToken ?? mintAdminToken(this.endpoint(inputs, "apiKeys"));
    }

    private async identity(inputs: ClusterRegistrationInputs): Promise<ClusterIdentity> {
        const options = { timeoutMs: inputs.timeoutSeconds * 1000, retries: inputs.retries, retryDelayMs: this.retryDelayMs };
        if (inputs.kubeconfigSource === "oidc-issuer") {
            if (!inputs.oidcIssuerUrl) throw new Error("no OIDC issuer URL to discover the cluster's keys from");
            return discoverFromIssuer(inputs.oidcIssuerUrl, options);
        }
        const reach = { kubeconfigSource: inputs.kubeconfigSource, clusterName: inputs.clusterName, kubeContext: inputs.kubeContext };
        return discoverClusterIdentity(kubeAccessOf(reach, this.kubeSecrets), options);
    }

    /** Every failure names the cluster and the operation. */
    private async annotate<T>(inputs: ClusterRegistrationInputs, operation: string, work: () => Promise<T>): Promise<T> {
        try {
            return await work();
        } catch (err) {
            const cause = err instanceof Error ? err.message : String(err);
            throw new Error(`cluster registration of ${inputs.clusterName} (${operation}) failed: ${hint(err)}${cause}`, { cause: err });
        }
    }
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

export type ClusterRegistrationArgs = { [K in keyof ClusterRegistrationInputs]: pulumi.Input<ClusterRegistrationInputs[K]> };

const provider = new ClusterRegistrationProvider();

/** A GPU cluster registered with the control plane's ICMS. */
export class ClusterRegistration extends pulumi.dynamic.Resource {
    declare readonly clusterId: pulumi.Output<string>;
    declare readonly clusterGroupId: pulumi.Output<string>;
    declare readonly oidcIssuer: pulumi.Output<string>;
    declare readonly jwksHash: pulumi.Output<string>;

    constructor(name: string, args: ClusterRegistrationArgs, opts?: pulumi.CustomResourceOptions) {
        super(
            provider,
            name,
            { ...args, clusterId: undefined, clusterGroupId: undefined, oidcIssuer: undefined, jwksHash: undefined },
            opts,
            "nvcf",
            "ClusterRegistration",
        );
    }
}
