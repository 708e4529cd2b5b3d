import type { ConnzConnection } from "../../lib/nats/contract";
import { InFrontOfOpenBaoCluster } from "./fake-openbao-cluster";

const NS = "nats-system";

/**
 * The NATS side of the control plane's cluster, in front of FakeOpenBaoCluster (which answers
 * everything else): `/version`, the chart's `nats-nkeys` Secret as the API server keeps it (a merge patch
 * that names an old `resourceVersion` gets 409 Conflict), the NATS pods (`nats` container,
 * `monitor` port 8222), and each server's `/connz` through the pod proxy, paged by `offset` and
 * `limit` and sorted by `cid` as nats-server v2.11.17's server/monitor.go answers it.
 */
export class FakeNatsSystem extends InFrontOfOpenBaoCluster {
    /** The Secret's `data` (base64) and `metadata`; undefined when it does not exist. */
    secret?: { data: Record<string, string>; annotations: Record<string, string>; resourceVersion: number };
    /** Each NATS pod's client connections; a pod mapped to a status number answers that instead. */
    readonly servers = new Map<string, ConnzConnection[] | number>([["nats-0", []]]);

    setKey(seed: string, publicKey: string): void {
        this.secret = {
            data: { "user.key": b64(seed), "user.pub": b64(publicKey) },
            annotations: {},
            resourceVersion: (this.secret?.resourceVersion ?? 100) + 1,
        };
    }

    key(): { seed: string; publicKey: string } {
        const d = this.secret!.data;
        return { seed: unb64(d["user.key"]), publicKey: unb64(d["user.pub"]) };
    }

    protected answer(method: string, path: string, sent: unknown): [number, unknown] | undefined {
        // version.Info of k8s.io/apimachinery, as test/support/fake-kube-api.ts answers it.
        if (method === "GET" && path === "/version") return [200, { major: "1", minor: "31", gitVersion: "v1.31.2" }];
        if (path === `/api/v1/namespaces/${NS}/secrets/nats-nkeys`) {
            const s = this.secret;
            if (!s) return [404, failure(404, `secrets "nats-nkeys" not found`)];
            if (method === "PATCH") {
                const patch = sent as {
                    metadata?: { resourceVersion?: string; annotations?: Record<string, string> };
                    data?: Record<string, string>;
                };
                if (patch.metadata?.resourceVersion && patch.metadata.resourceVersion !== String(s.resourceVersion)) {
                    return [409, failure(409, `Operation cannot be fulfilled on secrets "nats-nkeys": the object has been modified`)];
                }
                Object.assign(s.annotations, patch.metadata?.annotations ?? {});
                Object.assign(s.data, patch.data ?? {});
                s.resourceVersion++;
            }
            return [
                200,
                {
                    metadata: {
                        name: "nats-nkeys",
                        namespace: NS,
                        resourceVersion: String(s.resourceVersion),
                        annotations: { ...s.annotations },
                    },
                    data: { ...s.data },
                },
            ];
        }
        if (method === "GET" && path === `/api/v1/namespaces/${NS}/pods`) {
            const items = [...this.servers.keys()].map((name) => ({
                metadata: { name },
                spec: { containers: [{ name: "nats", ports: [{ name: "monitor", containerPort: 8222 }] }, { name: "reloader" }] },
            }));
            return [200, { kind: "PodList", items }];
        }
        const connz = new RegExp(`^/api/v1/namespaces/${NS}/pods/([a-z0-9-]+):8222/proxy/connz\\?(.*)$`).exec(path);
        if (connz && method === "GET") {
            const conns = this.servers.get(connz[1]);
            if (conns === undefined) return [503, failure(503, "error trying to reach service: connection refused")];
            if (typeof conns === "number") return [conns, failure(conns, "injected")];
            const q = new URLSearchParams(connz[2]);
            const offset = Number(q.get("offset") ?? 0);
            const limit = Number(q.get("limit") ?? 1024);
            const sorted = [...conns].sort((a, b) => a.cid - b.cid);
            const page = sorted
                .slice(offset, offset + limit)
                .map((c) => (q.get("auth") === "true" ? c : { ...c, authorized_user: undefined, account: undefined }));
            return [
                200,
                {
                    server_id: `N${connz[1]}`,
                    now: new Date().toISOString(),
                    num_connections: page.length,
                    total: sorted.length,
                    offset,
                    limit,
                    connections: page,
                },
            ];
        }
        return undefined;
    }
}

const b64 = (s: string) => Buffer.from(s).toString("base64");
const unb64 = (s: string) => Buffer.from(s, "base64").toString("utf8");

function failure(code: number, message: string) {
    return { kind: "Status", apiVersion: "v1", status: "Failure", message, code };
}
