import { excerpt } from "../http/client";
import type { Kube } from "./client";

/** Where the API serves a kind: its collection's plural name, and whether it lives in a namespace. */
export interface ApiResource {
    readonly plural: string;
    readonly namespaced: boolean;
}

/**
 * Kinds to the API paths that serve them, from the API server's discovery (`/api/v1`,
 * `/apis/<group>/<version>`: an APIResourceList), each group version asked once.
 */
export class Discovery {
    private readonly lists = new Map<string, Promise<Map<string, ApiResource>>>();

    constructor(private readonly kube: Kube) {}

    /** The resource that serves `kind` in `apiVersion`; throws when the server does not serve it. */
    private async resource(apiVersion: string, kind: string): Promise<ApiResource> {
        let list = this.lists.get(apiVersion);
        if (!list) {
            list = this.load(apiVersion);
            this.lists.set(apiVersion, list);
        }
        const found = (await list).get(kind);
        if (!found) throw new Error(`the API server does not serve ${kind} in ${apiVersion}`);
        return found;
    }

    /** The object's path (`/apis/apps/v1/namespaces/nvcf/deployments/api`), and whether its kind lives in a namespace. */
    async locate(apiVersion: string, kind: string, name: string, namespace: string): Promise<{ path: string; namespaced: boolean }> {
        const r = await this.resource(apiVersion, kind);
        const ns = r.namespaced ? `/namespaces/${namespace}` : "";
        return { path: `${groupVersionPath(apiVersion)}${ns}/${r.plural}/${encodeURIComponent(name)}`, namespaced: r.namespaced };
    }

    private async load(apiVersion: string): Promise<Map<string, ApiResource>> {
        const path = groupVersionPath(apiVersion);
        const res = await this.kube.request("GET", path);
        if (res.status === 404) return new Map();
        if (res.status !== 200) throw new Error(`GET ${path} answered HTTP ${res.status}: ${excerpt(res.text, 200)}`);
        const out = new Map<string, ApiResource>();
        for (const r of (res.body?.resources ?? []) as { name?: string; kind?: string; namespaced?: boolean }[]) {
            // Subresources (deployments/scale) carry their own kind; the object is the one without a slash.
            if (!r.name || !r.kind || r.name.includes("/")) continue;
            out.set(r.kind, { plural: r.name, namespaced: r.namespaced === true });
        }
        return out;
    }
}

const groupVersionPath = (apiVersion: string) => (apiVersion.includes("/") ? `/apis/${apiVersion}` : `/api/${apiVersion}`);
