import { excerpt, httpRequest } from "../http/client";
import type { ApiServer } from "../cluster-access/access";

/** One answer of the API server: any status (the caller decides what a 404 means), the body as JSON when it is. */
export interface KubeAnswer {
    readonly status: number;
    // The API's objects are read field by field, each field checked where it is used.
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    readonly body: any;
    readonly text: string;
}

/**
 * The little of the Kubernetes API the checks and the teardown use. An interface, so the unit
 * tests give each check a fake cluster and the providers a real one.
 */
export interface Kube {
    /** The server's URL, for messages. */
    readonly server: string;
    request(
        method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE",
        path: string,
        body?: unknown,
        contentType?: string,
        /** Extra headers, passed on by the API server's pod proxy (OpenBao's `X-Vault-Token`). */
        headers?: Readonly<Record<string, string>>,
    ): Promise<KubeAnswer>;
}

/** A Kube over the providers' HTTP client, with the credentials a kubeconfig gives. */
export function httpKube(api: ApiServer, options: { timeoutMs: number; retries: number; retryDelayMs?: number }): Kube {
    return {
        server: api.server,
        async request(method, path, body, contentType, headers) {
            const res = await httpRequest({
                method,
                url: `${api.server}${path}`,
                headers: { ...api.headers, ...headers, ...(contentType ? { "Content-Type": contentType } : {}) },
                ...(body !== undefined ? { body } : {}),
                tls: api.tls,
                timeoutMs: options.timeoutMs,
                retries: options.retries,
                retryDelayMs: options.retryDelayMs,
            });
            let parsed: unknown;
            try {
                parsed = res.body ? JSON.parse(res.body) : undefined;
            } catch {
                parsed = undefined;
            }
            return { status: res.status, body: parsed, text: res.body };
        },
    };
}

/** GET that answers the object, undefined for 404, and throws on anything else (naming the path and status). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function getObject(kube: Kube, path: string): Promise<any> {
    const res = await kube.request("GET", path);
    if (res.status === 404) return undefined;
    if (res.status !== 200) throw new Error(`GET ${path} answered HTTP ${res.status}: ${excerpt(res.text, 200)}`);
    return res.body;
}

/** The items of a list; an absent API (404) is an empty list. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function listItems(kube: Kube, path: string): Promise<any[]> {
    const list = await getObject(kube, path);
    return Array.isArray(list?.items) ? list.items : [];
}
