import { createHash } from "node:crypto";
import { excerpt, httpRequest, HttpRequest, HttpResponse, jsonBody } from "../http/client";
import { apiServer, KubeAccess } from "./access";

export type { KubeAccess };

/** The service-account token issuer of a cluster, as ICMS records it. */
export interface ClusterIdentity {
    readonly issuer: string;
    /** The JWKS document, as the exact JSON text ICMS receives. */
    readonly jwks: string;
    /** sha256 of the JWKS's canonical JSON: what state keeps to see a rotation. */
    readonly jwksHash: string;
}

export interface DiscoveryOptions {
    readonly timeoutMs: number;
    readonly retries: number;
    readonly retryDelayMs?: number;
}

/** The JWKS media type first: kube-apiserver answers 406 to a plain `application/json`. */
const JWKS_ACCEPT = "application/jwk-set+json, application/json";

/** sha256 over the JWKS with sorted keys, so formatting never looks like a rotation. */
export function jwksHash(jwks: string): string {
    const canonical = (value: unknown): unknown =>
        Array.isArray(value)
            ? value.map(canonical)
            : value && typeof value === "object"
              ? Object.fromEntries(
                    Object.keys(value as object)
                        .sort()
                        .map((k) => [k, canonical((value as Record<string, unknown>)[k])]),
                )
              : value;
    return createHash("sha256")
        .update(JSON.stringify(canonical(JSON.parse(jwks))))
        .digest("hex");
}

/** Issuers that only resolve inside the cluster: ask the API server, not the issuer. */
function inClusterIssuer(issuer: string): boolean {
    try {
        const host = new URL(issuer).hostname;
        return host.startsWith("kubernetes.default") || host.endsWith(".svc") || host.endsWith(".svc.cluster.local");
    } catch {
        return true;
    }
}

/**
 * What `nvcf-cli cluster register` discovers for identity source `psat`: the issuer from the
 * API server's `/.well-known/openid-configuration`, and the JWKS from the issuer itself when it
 * is reachable from outside (its `issuer` must match exactly), else from `/openid/v1/jwks`.
 * Always through the kubeconfig of the cluster being registered: another context would register another cluster's JWKS, and its agents' tokens would be refused.
 */
export async function discoverClusterIdentity(access: KubeAccess, options: DiscoveryOptions): Promise<ClusterIdentity> {
    const api = await apiServer(access);
    const base = { timeoutMs: options.timeoutMs, retries: options.retries, retryDelayMs: options.retryDelayMs };
    const get = (path: string, accept = "application/json"): Promise<HttpResponse> =>
        httpRequest({ ...base, method: "GET", url: `${api.server}${path}`, headers: { ...api.headers, Accept: accept }, tls: api.tls });

    const discovery = await get("/.well-known/openid-configuration");
    const config = expectJson<{ issuer?: string }>(discovery, `${api.server}/.well-known/openid-configuration`);
    const issuer = config.issuer ?? "";
    if (issuer === "") throw new Error(`the API server ${api.server} names no service-account issuer`);

    let jwks: string | undefined;
    if (!inClusterIssuer(issuer)) jwks = await jwksFromIssuer(issuer, { ...base, timeoutMs: Math.min(10_000, base.timeoutMs) });
    if (jwks === undefined) {
        // The API server serves the keys only as application/jwk-set+json (406 for plain JSON).
        const res = await get("/openid/v1/jwks", JWKS_ACCEPT);
        expectJson(res, `${api.server}/openid/v1/jwks`);
        jwks = res.body;
    }
    return { issuer, jwks, jwksHash: jwksHash(jwks) };
}

/**
 * The identity of a cluster whose issuer is public (EKS: the cluster's IAM OIDC provider): the
 * issuer's discovery document and keys, without access to the API server.
 */
export async function discoverFromIssuer(issuer: string, options: DiscoveryOptions): Promise<ClusterIdentity> {
    const jwks = await jwksFromIssuer(issuer, {
        timeoutMs: options.timeoutMs,
        retries: options.retries,
        retryDelayMs: options.retryDelayMs,
    });
    if (jwks === undefined) {
        throw new Error(`the issuer ${issuer} gave no usable discovery document (matching issuer, jwks_uri) and keys`);
    }
    return { issuer, jwks, jwksHash: jwksHash(jwks) };
}

/** The issuer's own discovery document and keys; undefined when they cannot be had or disagree. */
async function jwksFromIssuer(issuer: string, base: Omit<HttpRequest, "method" | "url">): Promise<string | undefined> {
    try {
        const doc = await httpRequest({ ...base, method: "GET", url: `${issuer.replace(/\/$/, "")}/.well-known/openid-configuration` });
        const config = doc.status === 200 ? jsonBody<{ issuer?: string; jwks_uri?: string }>(doc) : undefined;
        if (!config || config.issuer !== issuer || !config.jwks_uri) return undefined;
        const keys = await httpRequest({ ...base, method: "GET", url: config.jwks_uri, headers: { Accept: JWKS_ACCEPT } });
        if (keys.status !== 200 || keys.body.length > 1024 * 1024 || jsonBody(keys) === undefined) return undefined;
        return keys.body;
    } catch {
        return undefined;
    }
}

function expectJson<T>(res: HttpResponse, what: string): T {
    if (res.status !== 200) {
        throw new Error(`GET ${what} answered HTTP ${res.status}: ${excerpt(res.body)}`);
    }
    const parsed = jsonBody<T>(res);
    if (parsed === undefined) throw new Error(`GET ${what} did not return JSON: ${excerpt(res.body)}`);
    return parsed;
}
