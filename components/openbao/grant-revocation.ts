import * as pulumi from "@pulumi/pulumi";
import { PROJECT } from "../../config/model/project";
import { changedInputs, secretConfig } from "../dynamic/base";
import { httpKube } from "../../lib/kubernetes/client";
import { apiServer, type KubeAccess } from "../../lib/cluster-access/access";
import { ADMIN_ISSUER_GRANT, deleteObject, OpenBaoEndpoint, readTokenSecret, remainingGrant, type TokenSecret } from "./client";

/** How the revocation reaches OpenBao and its token. No secret is an input: they come from `configure`. */
export interface GrantRevocationInputs {
    /** `kubernetes`: through the API server's proxy to the pod; `address`: straight to `address`. */
    readonly via: "kubernetes" | "address";
    readonly address?: string;
    readonly namespace: string;
    readonly pod: string;
    readonly port: number;
    /** The scheme of OpenBao's listener inside the cluster. */
    readonly scheme: "http" | "https";
    readonly kubeContext?: string;
    /** A kubeconfig the program built (EKS: endpoint, CA, exec credential; no secret in it). */
    readonly kubeconfig?: string;
    /** `config`: the `openbaoToken` secret; `kubernetes-secret`: the chart's root-token Secret. */
    readonly tokenSource: "config" | "kubernetes-secret";
    readonly tokenSecret: TokenSecret;
    /** Verification of OpenBao's certificate (address mode); on unless turned off. */
    readonly insecureSkipVerify: boolean;
    readonly caCert?: string;
    readonly timeoutSeconds: number;
    readonly retries: number;
    /**
     * The `openbao-server` release's Helm revision. Its migrations Job is a post-install and
     * post-upgrade hook that recreates the grant, so every new revision revokes again.
     */
    readonly openbaoRevision?: number;
}

export interface GrantRevocationOutputs extends GrantRevocationInputs {
    /** The objects revoked, by path. */
    readonly revoked: string[];
    /** Grant objects found again at the last read: a migration recreated them (drift). */
    readonly remaining: string[];
}

export interface RevocationProviderOptions {
    readonly retryDelayMs?: number;
}

/**
 * Withdraws the admin issuer proxy's OpenBao grant: deletes its JWT auth role, ACL policy and JWT
 * secret role (already absent counts as done), then checks that no list names the proxy any more.
 * It runs again after each new revision of `openbao-server` (whose migrations recreate the grant)
 * and after a refresh that found the grant. Its delete does nothing: re-enabling the proxy lets
 * the next migration recreate the grant.
 */
export class GrantRevocationProvider implements pulumi.dynamic.ResourceProvider<GrantRevocationInputs, GrantRevocationOutputs> {
    private readonly retryDelayMs: number;
    // Set by configure() in the provider's own process; never serialized with the program.
    private token?: string;
    private kubeconfig?: string;

    constructor(options: RevocationProviderOptions = {}) {
        this.retryDelayMs = options.retryDelayMs ?? 1000;
    }

    async configure(req: pulumi.dynamic.ConfigureRequest): Promise<void> {
        this.token = secretConfig(req, "openbaoToken");
        this.kubeconfig = secretConfig(req, "kubeconfig");
    }

    async check(_olds: GrantRevocationInputs, news: GrantRevocationInputs): Promise<pulumi.dynamic.CheckResult<GrantRevocationInputs>> {
        const failures: pulumi.dynamic.CheckFailure[] = [];
        if (news.via === "address" && !news.address) failures.push({ property: "address", reason: "required when via is address" });
        return { inputs: news, failures };
    }

    async diff(_id: string, olds: GrantRevocationOutputs, news: GrantRevocationInputs): Promise<pulumi.dynamic.DiffResult> {
        // A refresh that found the grant again makes the next `up` revoke it again.
        return { changes: changedInputs(olds, news).length > 0 || (olds.remaining ?? []).length > 0 };
    }

    async create(inputs: GrantRevocationInputs): Promise<pulumi.dynamic.CreateResult<GrantRevocationOutputs>> {
        return { id: "admin-issuer-proxy-grant", outs: await this.revoke(inputs) };
    }

    async update(
        _id: string,
        _olds: GrantRevocationOutputs,
        news: GrantRevocationInputs,
    ): Promise<pulumi.dynamic.UpdateResult<GrantRevocationOutputs>> {
        return { outs: await this.revoke(news) };
    }

    async read(id: string, props?: GrantRevocationOutputs): Promise<pulumi.dynamic.ReadResult<GrantRevocationOutputs>> {
        if (!props) throw new Error("importing a grant revocation is not supported; declare it instead");
        const { endpoint, token } = await this.connect(props);
        return { id, props: { ...props, remaining: await remainingGrant(endpoint, token) } };
    }

    async delete(_id: string, _props: GrantRevocationOutputs): Promise<void> {
        // Nothing to restore: with the proxy enabled again, the next OpenBao migration recreates the grant.
    }

    private async revoke(inputs: GrantRevocationInputs): Promise<GrantRevocationOutputs> {
        const { endpoint, token } = await this.connect(inputs);
        // Each delete is idempotent, so a run that failed after some of them completes on the next.
        for (const object of ADMIN_ISSUER_GRANT) await deleteObject(endpoint, token, object);
        // The chart sets disable_standby_reads: a standby forwards the lists to the active member,
        // which has applied the deletes, so one look tells.
        const remaining = await remainingGrant(endpoint, token);
        if (remaining.length > 0) {
            throw new Error(`the admin issuer proxy's grant is still in OpenBao after its deletion: ${remaining.join(", ")}`);
        }
        return { ...inputs, revoked: ADMIN_ISSUER_GRANT.map((o) => o.path), remaining: [] };
    }

    private async connect(inputs: GrantRevocationInputs): Promise<{ endpoint: OpenBaoEndpoint; token: string }> {
        const base = { timeoutMs: inputs.timeoutSeconds * 1000, retries: inputs.retries, retryDelayMs: this.retryDelayMs };
        const needsKube = inputs.via === "kubernetes" || inputs.tokenSource === "kubernetes-secret";
        const source = inputs.kubeconfig !== undefined ? "the kubeconfig built for the EKS cluster" : `the secret ${PROJECT}:kubeconfig`;
        const access: KubeAccess = { kubeconfig: inputs.kubeconfig ?? this.kubeconfig, context: inputs.kubeContext, source };
        const api = needsKube ? await apiServer(access) : undefined;
        const endpoint: OpenBaoEndpoint =
            inputs.via === "address"
                ? {
                      ...base,
                      url: inputs.address!,
                      tls: { rejectUnauthorized: !inputs.insecureSkipVerify, ...(inputs.caCert ? { ca: inputs.caCert } : {}) },
                  }
                : {
                      ...base,
                      // The API server's pod proxy reaches the in-cluster-only listener with the kubeconfig's own auth.
                      url: `${api!.server}/api/v1/namespaces/${inputs.namespace}/pods/${inputs.scheme === "https" ? "https:" : ""}${inputs.pod}:${inputs.port}/proxy`,
                      headers: api!.headers,
                      tls: api!.tls,
                  };
        if (inputs.tokenSource === "config") {
            if (!this.token) throw new Error("no OpenBao token: set it with `pulumi config set --secret openbaoToken <token>`");
            return { endpoint, token: this.token };
        }
        const token = await readTokenSecret(httpKube(api!, base), inputs.tokenSecret);
        return { endpoint, token };
    }
}

export type GrantRevocationArgs = { [K in keyof GrantRevocationInputs]: pulumi.Input<GrantRevocationInputs[K]> };

const provider = new GrantRevocationProvider();

/** The dynamic resource that revokes; `remaining` shows a grant a migration recreated. */
class GrantRevocationResource extends pulumi.dynamic.Resource {
    declare readonly revoked: pulumi.Output<string[]>;
    declare readonly remaining: pulumi.Output<string[]>;
    constructor(name: string, args: GrantRevocationArgs, opts?: pulumi.CustomResourceOptions) {
        super(provider, name, { ...args, revoked: undefined, remaining: undefined }, opts, "nvcf", "OpenBaoGrantRevocation");
    }
}

/**
 * The withdrawal of the admin issuer proxy's OpenBao grant, declared while the proxy is
 * disabled. A component, for a stable `nvcf:openbao:GrantRevocation` type token around the
 * dynamic resource that does the work.
 */
export class OpenBaoGrantRevocation extends pulumi.ComponentResource {
    /** The dynamic resource that deletes the grant's three OpenBao objects. */
    readonly revocation: GrantRevocationResource;

    constructor(name: string, args: GrantRevocationArgs, opts?: pulumi.ComponentResourceOptions) {
        super("nvcf:openbao:GrantRevocation", name, {}, opts);
        this.revocation = new GrantRevocationResource(
            `${name}-grant`,
            args,
            // The component's dependsOn, on the resource itself too, so the edge is on the one that acts.
            { parent: this, dependsOn: opts?.dependsOn },
        );
        this.registerOutputs({});
    }
}
