import type { Kube } from "../kubernetes/client";
import { excerpt, HttpError, httpRequest, HttpResponse, jsonBody, TlsOptions } from "../http/client";
import { ADMIN_ISSUER_GRANT_PATHS, OPENBAO_API } from "./contract";

const parentOf = (p: string) => p.slice(0, p.lastIndexOf("/"));

/** How the revocation talks to OpenBao: a base URL (direct, or the API server's pod proxy) and its auth. */
export interface OpenBaoEndpoint {
    /** Base URL that `/v1/...` is appended to. */
    readonly url: string;
    /** Headers every request carries besides the token (the API server's own auth, for the proxy). */
    readonly headers?: Readonly<Record<string, string>>;
    readonly tls?: TlsOptions;
    readonly timeoutMs: number;
    readonly retries: number;
    readonly retryDelayMs?: number;
}

/** One object of the admin-issuer-proxy grant that migration `10_setup_admin-issuer.sh` creates. */
export interface GrantObject {
    readonly description: string;
    /** Path under /v1 to delete. */
    readonly path: string;
    /** Path under /v1 whose list must not name it afterwards. */
    readonly listPath: string;
}

export const ADMIN_ISSUER_PROXY = "admin-issuer-proxy";

/** The three objects that let the proxy's service account mint admin tokens. */
export const ADMIN_ISSUER_GRANT: readonly GrantObject[] = [
    { description: "the JWT auth role", path: ADMIN_ISSUER_GRANT_PATHS.authRole, listPath: parentOf(ADMIN_ISSUER_GRANT_PATHS.authRole) },
    { description: "the ACL policy", path: ADMIN_ISSUER_GRANT_PATHS.policy, listPath: OPENBAO_API.aclPolicies },
    {
        description: "the JWT secret role",
        path: ADMIN_ISSUER_GRANT_PATHS.secretRole,
        listPath: parentOf(ADMIN_ISSUER_GRANT_PATHS.secretRole),
    },
];

function bao(endpoint: OpenBaoEndpoint, token: string, method: "GET" | "DELETE", path: string): Promise<HttpResponse> {
    return httpRequest({
        method,
        url: `${endpoint.url.replace(/\/$/, "")}/v1/${path}`,
        headers: { ...endpoint.headers, "X-Vault-Token": token },
        tls: endpoint.tls,
        timeoutMs: endpoint.timeoutMs,
        retries: endpoint.retries,
        retryDelayMs: endpoint.retryDelayMs,
    });
}

/**
 * What an OpenBao answer means, for a message that tells the user what to do. `url` is where it
 * was sent (for the pod proxy: the pod's proxy URL), `pod` the member it was meant for.
 */
export function explain(url: string, res: Pick<HttpResponse, "status" | "body">, pod = "openbao-server-0"): string {
    const body = jsonBody<{ errors?: unknown; kind?: unknown; message?: unknown }>(res);
    // Through the pod proxy, the API server answers for itself (a Status object) when it cannot reach the pod.
    if (body?.kind === "Status") {
        const message = typeof body.message === "string" ? body.message : excerpt(res.body);
        return (
            `the Kubernetes API server answered ${res.status} for the pod proxy at ${url} (${message}), not OpenBao: ` +
            `check that the OpenBao pod is running and ready (kubectl -n vault-system get pod ${pod}), then run again`
        );
    }
    const list = Array.isArray(body?.errors) ? body.errors.filter((e): e is string => typeof e === "string") : undefined;
    const errors = list?.join("; ") || excerpt(res.body);
    if (res.status === 403) return `OpenBao answered 403 (${errors}): the token is wrong, expired or lacks access to this path`;
    if (res.status === 503 && list && /sealed|not (yet )?initiali[sz]ed/i.test(errors)) {
        return `OpenBao answered 503 (${errors}): the server is sealed or not yet initialised; unseal it and run again`;
    }
    if (res.status === 503)
        return `${url} answered 503 (${errors || "no body"}): OpenBao or the way to it is unavailable; check the OpenBao pod and its address, then run again`;
    if (res.status === 401) return `OpenBao answered 401 (${errors}): no valid token was sent`;
    return `OpenBao answered ${res.status} (${errors})`;
}

function unreachable(endpoint: OpenBaoEndpoint, err: unknown): Error {
    const cause = err instanceof HttpError ? err.message : String(err);
    return new Error(`OpenBao at ${endpoint.url} could not be reached: ${cause}`);
}

/**
 * Deletes one object. 204 whether or not it existed; 404 (no such mount or route) is absent too.
 */
export async function deleteObject(endpoint: OpenBaoEndpoint, token: string, object: GrantObject): Promise<void> {
    let res: HttpResponse;
    try {
        res = await bao(endpoint, token, "DELETE", object.path);
    } catch (err) {
        throw new Error(`could not delete ${object.description} ${object.path}: ${unreachable(endpoint, err).message}`, { cause: err });
    }
    if (res.status === 204 || res.status === 200 || res.status === 404) return;
    throw new Error(`could not delete ${object.description} ${object.path}: ${explain(endpoint.url, res)}`);
}

/** The names under a path (`LIST`, sent as `GET ?list=true`); an empty list is a 404. */
export async function listNames(endpoint: OpenBaoEndpoint, token: string, path: string): Promise<string[]> {
    let res: HttpResponse;
    try {
        res = await bao(endpoint, token, "GET", `${path}?list=true`);
    } catch (err) {
        throw new Error(`could not list ${path}: ${unreachable(endpoint, err).message}`, { cause: err });
    }
    if (res.status === 404) return [];
    if (res.status !== 200) throw new Error(`could not list ${path}: ${explain(endpoint.url, res)}`);
    // An answer of another shape proves nothing about what is left: the verification fails instead.
    const keys = jsonBody<{ data?: { keys?: unknown } }>(res)?.data?.keys;
    if (!Array.isArray(keys) || !keys.every((k) => typeof k === "string")) {
        throw new Error(
            `could not list ${path}: ${endpoint.url} answered 200 without OpenBao's documented {"data":{"keys":[...]}}: ` +
                `${excerpt(res.body) || "an empty body"}. Check that the address reaches OpenBao itself (not a proxy or another service), then run again`,
        );
    }
    return keys as string[];
}

/** The grant objects that still exist: each list place that names admin-issuer-proxy. */
export async function remainingGrant(endpoint: OpenBaoEndpoint, token: string): Promise<string[]> {
    const remaining: string[] = [];
    for (const object of ADMIN_ISSUER_GRANT) {
        const names = await listNames(endpoint, token, object.listPath);
        for (const name of names.filter((n) => n.includes(ADMIN_ISSUER_PROXY))) remaining.push(`${object.listPath}/${name}`);
    }
    return remaining;
}

/** A Kubernetes Secret key that holds an OpenBao token (the chart's root-token Secret). */
export interface TokenSecret {
    readonly namespace: string;
    readonly name: string;
    readonly key: string;
}

/** The token in a Secret, read through the API server; never quoted in a message (it is the root token, or close to it). */
export async function readTokenSecret(kube: Kube, s: TokenSecret): Promise<string> {
    const path = `/api/v1/namespaces/${s.namespace}/secrets/${s.name}`;
    const res = await kube.request("GET", path);
    if (res.status !== 200) {
        throw new Error(
            `could not read OpenBao's root token from Secret ${s.namespace}/${s.name}: HTTP ${res.status}: ${excerpt(res.text)}`,
        );
    }
    const encoded: unknown = (res.body as { data?: Record<string, unknown> } | undefined)?.data?.[s.key];
    if (!encoded) throw new Error(`Secret ${s.namespace}/${s.name} has no key ${s.key}`);
    const token =
        typeof encoded === "string" && /^[A-Za-z0-9+/]*={0,2}$/.test(encoded) ? Buffer.from(encoded, "base64").toString("utf8").trim() : "";
    if (!/^[\x21-\x7e]+$/.test(token)) {
        throw new Error(
            `Secret ${s.namespace}/${s.name} key ${s.key} at ${kube.server}${path} is not a base64 token of one line of printable characters; ` +
                "check that it is the chart's root-token Secret, or set openbaoToken",
        );
    }
    return token;
}
