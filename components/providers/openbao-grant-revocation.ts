import type * as pulumi from "@pulumi/pulumi";
import { PROJECT } from "../../config/model/project";
import { httpKube } from "../../lib/kubernetes/client";
import { apiServer, type KubeAccess } from "../../lib/cluster-access/access";
import {
    ADMIN_ISSUER_GRANT,
    deleteObject,
    OpenBaoEndpoint,
    readTokenSecret,
    remainingGrant,
    type TokenSecret,
} from "../../lib/openbao/client";
import { defineProvider, type ProviderContext } from "./kit";

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

/**
 * Withdraws the admin issuer proxy's OpenBao grant: deletes its JWT auth role, ACL policy and JWT
 * secret role (already absent counts as done), then checks that no list names the proxy any more.
 * It runs again after each new revision of `openbao-server` (whose migrations recreate the grant)
 * and after a refresh that found the grant. Its delete does nothing: re-enabling the proxy lets
 * the next migration recreate the grant.
 */
export const GrantRevocationProvider = defineProvider<GrantRevocationInputs, GrantRevocationOutputs>({
    describe: () => "the admin issuer proxy's grant",
    secrets: ["openbaoToken"],
    check: (news) => (news.via === "address" && !news.address ? [{ property: "address", reason: "required when via is address" }] : []),
    // A refresh that found the grant again makes the next `up` revoke it again.
    changes: async (olds) => (olds.remaining ?? []).length > 0,
    id: () => "admin-issuer-proxy-grant",
    create: revoke,
    importRefused: "importing a grant revocation is not supported; declare it instead",
    read: async (_id, props, ctx) => {
        const { endpoint, token } = await connect(props, ctx);
        return { ...props, remaining: await remainingGrant(endpoint, token) };
    },
    // No delete: nothing to restore; with the proxy enabled again, the next OpenBao migration recreates the grant.
});

async function revoke(inputs: GrantRevocationInputs, ctx: ProviderContext): Promise<GrantRevocationOutputs> {
    const { endpoint, token } = await connect(inputs, ctx);
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

async function connect(inputs: GrantRevocationInputs, ctx: ProviderContext): Promise<{ endpoint: OpenBaoEndpoint; token: string }> {
    const base = { timeoutMs: inputs.timeoutSeconds * 1000, retries: inputs.retries, retryDelayMs: ctx.options.retryDelayMs ?? 1000 };
    const needsKube = inputs.via === "kubernetes" || inputs.tokenSource === "kubernetes-secret";
    const source = inputs.kubeconfig !== undefined ? "the kubeconfig built for the EKS cluster" : `the secret ${PROJECT}:kubeconfig`;
    const access: KubeAccess = { kubeconfig: inputs.kubeconfig ?? ctx.kubeSecrets.kubeconfig, context: inputs.kubeContext, source };
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
        const token = ctx.secret("openbaoToken");
        if (!token) throw new Error("no OpenBao token: set it with `pulumi config set --secret openbaoToken <token>`");
        return { endpoint, token };
    }
    const token = await readTokenSecret(httpKube(api!, base), inputs.tokenSecret);
    return { endpoint, token };
}

export type GrantRevocationArgs = { [K in keyof GrantRevocationInputs]: pulumi.Input<GrantRevocationInputs[K]> };
