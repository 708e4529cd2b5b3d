import { excerpt, httpRequest, HttpResponse, jsonBody } from "../http/client";

/** An HTTP endpoint of the control plane as this program reaches it. */
export interface Endpoint {
    readonly url: string;
    /** `Host:` when dialling a bare gateway address: the gateway routes by host (`sis.<domain>`, `api-keys.<domain>`). */
    readonly hostHeader?: string;
    readonly timeoutMs: number;
    readonly retries: number;
    readonly retryDelayMs?: number;
}

/** A non-success answer of ICMS or API Keys, with its status and body. */
export class ApiError extends Error {
    readonly status: number;
    readonly body: string;
    constructor(what: string, res: HttpResponse) {
        const error = jsonBody<{ error?: string }>(res)?.error;
        super(`${what}: HTTP ${res.status}: ${error ?? excerpt(res.body)}`);
        this.name = "ApiError";
        this.status = res.status;
        this.body = res.body;
    }
}

/** One request to a control-plane endpoint, with the bearer token when given. */
export function call(endpoint: Endpoint, method: "GET" | "POST" | "PUT" | "DELETE", path: string, token?: string, body?: unknown) {
    return httpRequest({
        method,
        url: `${endpoint.url.replace(/\/$/, "")}${path}`,
        hostHeader: endpoint.hostHeader,
        headers: token ? { Authorization: `Bearer ${token}` } : {},
        body,
        timeoutMs: endpoint.timeoutMs,
        retries: endpoint.retries,
        retryDelayMs: endpoint.retryDelayMs,
    });
}

const ok = (res: HttpResponse) => res.status >= 200 && res.status < 300;
const accountPath = (ncaId: string) => `/v1/accounts/${encodeURIComponent(ncaId)}/clusters`;

/**
 * An admin JWT with the `cluster-management` scope, as `nvcf-cli init` gets it: an
 * unauthenticated `POST /v1/admin/keys` with body `{}` on the api-keys host: registration needs this admin JWT with the cluster-management scope, not an API key, and it expires.
 */
export async function mintAdminToken(apiKeys: Endpoint): Promise<string> {
    const res = await call(apiKeys, "POST", "/v1/admin/keys", undefined, "{}");
    if (res.status !== 200 && res.status !== 201) throw new ApiError("POST /v1/admin/keys (admin token)", res);
    // Only the documented {id, value, ...}: anything else (a login page, another service's JSON)
    // would be sent on as a bearer token. The body may hold a token, so it is described, never quoted.
    const parsed = jsonBody<unknown>(res);
    const value = parsed && typeof parsed === "object" && !Array.isArray(parsed) ? (parsed as { value?: unknown }).value : undefined;
    if (typeof value === "string" && /^[\x21-\x7e]+$/.test(value)) return value;
    const got =
        parsed === undefined
            ? `a body that is not JSON (${Buffer.byteLength(res.body)} bytes, Content-Type ${String(res.headers["content-type"] ?? "none")})`
            : parsed && typeof parsed === "object" && !Array.isArray(parsed)
              ? `a JSON object with ${typeof value === "string" ? "a `value` that is empty or not one line of printable characters" : "no string `value`"} (keys: ${Object.keys(parsed).slice(0, 10).join(", ") || "none"})`
              : `JSON of another shape (${Array.isArray(parsed) ? "an array" : typeof parsed})`;
    throw new Error(
        `POST ${apiKeys.url.replace(/\/$/, "")}/v1/admin/keys (admin token) answered HTTP ${res.status} with ${got}, not the documented ` +
            '{"id", "value", ...}: check that registration.apiKeysURL and apiKeysHostHeader reach the admin issuer proxy (api-keys.<domain>), ' +
            "or set nvcfAdminToken",
    );
}

export interface RegistrationRequest {
    readonly clusterName: string;
    readonly ncaId: string;
    readonly region: string;
    readonly cloudProvider: string;
    readonly jwks: string;
    readonly oidcIssuer: string;
}

export interface ClusterIds {
    readonly clusterId: string;
    readonly clusterGroupId: string;
}

/** `POST /v1/accounts/{ncaId}/clusters`, the body `nvcf-cli cluster register` sends. */
export async function registerCluster(icms: Endpoint, token: string, req: RegistrationRequest): Promise<ClusterIds> {
    const res = await call(icms, "POST", accountPath(req.ncaId), token, {
        clusterName: req.clusterName,
        clusterGroupName: req.clusterName,
        ncaId: req.ncaId,
        cloudProvider: req.cloudProvider,
        region: req.region,
        nvcaVersion: "0.0.0",
        capabilities: ["DynamicGPUDiscovery"],
        // ICMS takes the JWKS as a JSON string, not as an object.
        jwks: req.jwks,
        oidcIssuer: req.oidcIssuer,
    });
    if (!ok(res)) throw new ApiError(`POST ${accountPath(req.ncaId)}`, res);
    type Created = { clusterId?: string; clusterGroupId?: string; clusterGroup?: { id?: string; clusters?: { id?: string }[] } };
    const body = jsonBody<Created>(res) ?? {};
    // The CLI prefers the nested shape when ICMS sends it.
    const clusterId = body.clusterGroup?.clusters?.[0]?.id ?? body.clusterId;
    const clusterGroupId = body.clusterGroup?.id ?? body.clusterGroupId;
    if (!clusterId || !clusterGroupId)
        throw new Error(`POST ${accountPath(req.ncaId)}: the answer names no cluster ID: ${excerpt(res.body)}`);
    return { clusterId, clusterGroupId };
}

export interface ClusterRecord {
    readonly clusterId: string;
    readonly clusterName: string;
    /** ICMS serializes nulls: a cluster can be listed without its group. */
    readonly clusterGroupId?: string | null;
    readonly region?: string;
    readonly status?: string;
}

/** `GET /v1/accounts/{ncaId}/clusters`: every cluster of the account. */
export async function listClusters(icms: Endpoint, token: string, ncaId: string): Promise<ClusterRecord[]> {
    const res = await call(icms, "GET", accountPath(ncaId), token);
    if (!ok(res)) throw new ApiError(`GET ${accountPath(ncaId)}`, res);
    const body = jsonBody<unknown>(res);
    if (!Array.isArray(body) || !body.every(isClusterRecord)) {
        throw new Error(
            `GET ${icms.url.replace(/\/$/, "")}${accountPath(ncaId)}: expected ICMS's list of clusters (each with clusterId and clusterName), ` +
                `got ${excerpt(res.body) || "an empty body"}; check that registration.icmsURL and icmsHostHeader reach ICMS (sis.<domain>)`,
        );
    }
    return body;
}

function isClusterRecord(value: unknown): value is ClusterRecord {
    const r = value as Record<string, unknown> | null;
    return (
        !!r &&
        typeof r === "object" &&
        typeof r.clusterId === "string" &&
        typeof r.clusterName === "string" &&
        (r.clusterGroupId === undefined || r.clusterGroupId === null || typeof r.clusterGroupId === "string")
    );
}

/** `GET /v1/accounts/{ncaId}/clusters/{id}`; undefined when ICMS does not know the cluster. */
export async function getCluster(icms: Endpoint, token: string, ncaId: string, clusterId: string): Promise<ClusterRecord | undefined> {
    const path = `${accountPath(ncaId)}/${encodeURIComponent(clusterId)}`;
    const res = await call(icms, "GET", path, token);
    if (res.status === 404) return undefined;
    if (!ok(res)) throw new ApiError(`GET ${path}`, res);
    const body = jsonBody<{ clusterId?: unknown; clusterGroupId?: unknown }>(res);
    if (!body || typeof body !== "object" || typeof body.clusterId !== "string") {
        throw new Error(
            `GET ${icms.url.replace(/\/$/, "")}${path}: expected ICMS's cluster record (with clusterId), got ${excerpt(res.body) || "an empty body"}; ` +
                "check that registration.icmsURL and icmsHostHeader reach ICMS (sis.<domain>)",
        );
    }
    return body as ClusterRecord;
}

/** `PUT /v1/nvca/clusters/{id}/jwks`: records a new issuer and JWKS for an existing cluster. */
export async function putJwks(icms: Endpoint, token: string, clusterId: string, jwks: string, oidcIssuer: string): Promise<void> {
    const path = `/v1/nvca/clusters/${encodeURIComponent(clusterId)}/jwks`;
    const res = await call(icms, "PUT", path, token, { jwks, oidcIssuer });
    if (!ok(res)) throw new ApiError(`PUT ${path}`, res);
}

/** `DELETE /v1/accounts/{ncaId}/clusters/{id}`; "absent" when ICMS no longer knows it. */
export async function deleteCluster(icms: Endpoint, token: string, ncaId: string, clusterId: string): Promise<"deleted" | "absent"> {
    // An empty NCA ID would turn into `/accounts//clusters/<id>`, whose 404 looks like success.
    if (!ncaId) throw new Error("refusing to deregister a cluster without an NCA ID");
    const path = `${accountPath(ncaId)}/${encodeURIComponent(clusterId)}`;
    const res = await call(icms, "DELETE", path, token);
    if (res.status === 404) return "absent";
    if (!ok(res)) throw new ApiError(`DELETE ${path}`, res);
    return "deleted";
}
