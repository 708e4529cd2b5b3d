import type { Kube } from "../kubernetes/client";
import type { ClusterReach } from "../cluster-access/reach";
import { readTokenSecret, type TokenSecret } from "./client";
import { podProxyMembers, type MemberEndpoint, type OpenBaoMembers } from "./members";

/**
 * The token for step-down, the Raft configuration and the mounts: given, read from the chart's
 * root-token Secret, or missing (a call that needs one fails with `missing`).
 */
export type TokenSource = { readonly token: string } | { readonly secret: TokenSecret } | { readonly missing: string };

/**
 * OpenBao's members on a cluster, through its API server. The token is read once, when a call
 * first needs it (a failed read is tried again on the next call).
 */
export function openBaoMembers(kube: Kube, endpoint: MemberEndpoint, source: TokenSource): OpenBaoMembers {
    let cached: Promise<string> | undefined;
    const token = () => {
        if ("token" in source) return Promise.resolve(source.token);
        if ("missing" in source) return Promise.reject(new Error(source.missing));
        cached ??= readTokenSecret(kube, source.secret).catch((err: unknown) => {
            cached = undefined;
            throw err;
        });
        return cached;
    };
    return podProxyMembers(kube, endpoint, token);
}

/** Where OpenBao's members are and how the provider reaches them; no secret is an input. */
export interface OpenBaoReach {
    readonly reach: ClusterReach;
    readonly namespace: string;
    readonly statefulSet: string;
    readonly port: number;
    readonly scheme: "http" | "https";
    /** `config`: the `openbaoToken` secret; `kubernetes-secret`: the chart's root-token Secret. */
    readonly tokenSource: "config" | "kubernetes-secret";
    readonly tokenSecret: TokenSecret;
}

/** How the provider finds OpenBao's token: from the stack secret read in configure, or the chart's Secret. */
export function tokenSourceOf(inputs: OpenBaoReach, configured: string | undefined): TokenSource {
    if (inputs.tokenSource === "kubernetes-secret") return { secret: inputs.tokenSecret };
    return configured
        ? { token: configured }
        : { missing: "no OpenBao token: set it with `pulumi config set --secret openbaoToken <token>`" };
}
