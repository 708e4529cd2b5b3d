import { excerpt } from "../http/client";
import type { Kube } from "./client";

/** Where the API serves a kind: its collection's plural name, and whether it lives in a namespace. */
export interface ApiResource {
    readonly plural: string;
    readonly namespaced: boolean;
}

/** Kinds to the API paths that serve them. */
export interface Discovery {
    /** The object's path (`/apis/apps/v1/namespaces/nvcf/deployments/api`), and whether its kind lives in a namespace; throws when the kind is not served. */
    locate(apiVersion: string, kind: string, name: string, namespace: string): Promise<{ path: string; namespaced: boolean }>;
}

const groupVersionPath = (apiVersion: string) => (apiVersion.includes("/") ? `/apis/${apiVersion}` : `/api/${apiVersion}`);

/**
 * The API server's discovery (`/api/v1`, `/apis/<group>/<version>`: an APIResourceList), each
 * group version asked once.
 */
export function discovery(kube: Kube): Discovery {
    const lists = new Map<string, Promise<Map<string, ApiResource>>>();
    const load = async (apiVersion: string): Promise<Map<string, ApiResource>> => {
        const path = groupVersionPath(apiVersion);
        const res = await kube.request("GET", path);
        if (res.status === 404) return new Map();
        if (res.status !== 200) throw new Error(`GET ${path} answered HTTP ${res.status}: ${excerpt(res.text, 200)}`);
        const out = new Map<string, ApiResource>();
        for (const r of (res.body?.resources ?? []) as { name?: string; kind?: string; namespaced?: boolean }[]) {
            // Subresources (deployments/scale) carry their own kind; the object is the one without a slash.
            if (!r.name || !r.kind || r.name.includes("/")) continue;
            out.set(r.kind, { plural: r.name, namespaced: r.namespaced === true });
        }
        return out;
    };
    return {
        async locate(apiVersion, kind, name, namespace) {
            let list = lists.get(apiVersion);
            if (!list) {
                list = load(apiVersion);
                lists.set(apiVersion, list);
            }
            const r = (await list).get(kind);
            if (!r) throw new Error(`the API server does not serve ${kind} in ${apiVersion}`);
            const ns = r.namespaced ? `/namespaces/${namespace}` : "";
            return { path: `${groupVersionPath(apiVersion)}${ns}/${r.plural}/${encodeURIComponent(name)}`, namespaced: r.namespaced };
        },
    };
}
