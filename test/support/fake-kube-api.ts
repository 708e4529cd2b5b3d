import * as http from "node:http";
import type { AddressInfo } from "node:net";
import * as zlib from "node:zlib";
import { HELM_SECRET, type HelmReleaseStatus } from "../../lib/contracts/helm";
import type { Kube } from "../../lib/kubernetes/client";
import { conform } from "./conformance";

/**
 * An in-process Kubernetes API server that answers GETs from a map of paths to objects (a
 * collection's path lists the objects under it, filtered by a labelSelector of k=v pairs), the
 * version, and access reviews. Enough for `npm run status`, spawned as a real command.
 */
export class FakeKubeApi {
    readonly objects = new Map<string, unknown>();
    readonly requests: string[] = [];
    version = { major: "1", minor: "31", gitVersion: "v1.31.2" };
    allowed = true;
    readonly token = "status-test-token";
    private server?: http.Server;

    get url(): string {
        return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`;
    }

    put(path: string, obj: unknown): this {
        conform(path, obj);
        this.objects.set(path, obj);
        return this;
    }

    /** A Helm release Secret as Helm 3 stores it: base64(gzip(JSON)), base64-encoded again as Secret data. */
    putRelease(r: {
        name: string;
        namespace: string;
        revision: number;
        chart: string;
        version: string;
        status: HelmReleaseStatus;
        manifest?: string;
        /** The record Secret's creationTimestamp (the API server sets one on every object). */
        created?: string;
        description?: string;
        /** The chart's hooks as `pkg/release/hook.go` serializes them (`name`, `kind`, `path`, `manifest`, `events`, `weight`, `delete_policies`). */
        hooks?: readonly Record<string, unknown>[];
    }): this {
        const record = {
            name: r.name,
            namespace: r.namespace,
            version: r.revision,
            info: { status: r.status, ...(r.description ? { description: r.description } : {}) },
            chart: { metadata: { name: r.chart, version: r.version } },
            manifest: r.manifest ?? "",
            ...(r.hooks ? { hooks: r.hooks } : {}),
        };
        const inner = zlib.gzipSync(JSON.stringify(record)).toString("base64");
        const name = `${HELM_SECRET.namePrefix}${r.name}.v${r.revision}`;
        const [ownerKey, owner] = HELM_SECRET.selector.split("=");
        return this.put(`/api/v1/namespaces/${r.namespace}/secrets/${name}`, {
            metadata: {
                name,
                namespace: r.namespace,
                ...(r.created ? { creationTimestamp: r.created } : {}),
                labels: { [ownerKey]: owner, name: r.name, status: r.status, version: String(r.revision) },
            },
            type: HELM_SECRET.type,
            data: { release: Buffer.from(inner).toString("base64") },
        });
    }

    kubeconfig(): string {
        return [
            "apiVersion: v1",
            "kind: Config",
            "clusters:",
            `- name: fake\n  cluster:\n    server: ${this.url}\n    insecure-skip-tls-verify: true`,
            "users:",
            `- name: admin\n  user:\n    token: ${this.token}`,
            "contexts:",
            "- name: fake\n  context:\n    cluster: fake\n    user: admin",
            "current-context: fake",
            "",
        ].join("\n");
    }

    async start(): Promise<void> {
        this.server = http.createServer((req, res) => {
            let body = "";
            req.on("data", (d) => (body += d));
            req.on("end", () => {
                const path = req.url ?? "/";
                this.requests.push(`${req.method} ${path}`);
                const [status, answer] = this.answer(req.method ?? "GET", path, req.headers.authorization);
                res.writeHead(status, { "Content-Type": "application/json" });
                res.end(JSON.stringify(answer));
            });
        });
        await new Promise<void>((resolve) => this.server!.listen(0, "127.0.0.1", resolve));
    }

    async stop(): Promise<void> {
        await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    }

    /** The answer to one request; public so a unit test can use the fake as an in-process Kube too. */
    answer(method: string, path: string, authorization: string | undefined): [number, unknown] {
        if (authorization !== `Bearer ${this.token}`) return [401, { kind: "Status", code: 401 }];
        if (method === "GET" && path === "/version") return [200, this.version];
        if (method === "POST" && path.endsWith("/selfsubjectaccessreviews")) return [201, { status: { allowed: this.allowed } }];
        if (method !== "GET") return [405, { kind: "Status", code: 405 }];
        const [bare, query = ""] = path.split("?");
        if (this.objects.has(bare)) return [200, this.objects.get(bare)];
        const items = [...this.objects.entries()]
            .filter(([p]) => p.startsWith(`${bare}/`) && !p.slice(bare.length + 1).includes("/"))
            .map(([, o]) => o as { metadata?: { labels?: Record<string, string> } });
        const selector = new URLSearchParams(query).get("labelSelector");
        const wanted = selector ? selector.split(",").map((kv) => kv.split("=")) : [];
        const matching = items.filter((o) => wanted.every(([k, v]) => o.metadata?.labels?.[k] === v));
        // A collection of a known kind answers an empty list; an unknown path is a 404, as for an absent object.
        return items.length > 0 ||
            /\/(pods|jobs|secrets|deployments|statefulsets|httproutes|storageclasses|nodes|persistentvolumeclaims)$/.test(bare)
            ? [200, { items: matching }]
            : [404, { kind: "Status", code: 404 }];
    }
}

/** A Kube over the fake API server's answers, in process (no socket). */
export function inProcessKube(fake: FakeKubeApi): Kube {
    return {
        server: "fake",
        async request(method, p) {
            const [status, body] = fake.answer(method, p, `Bearer ${fake.token}`);
            return { status, body, text: JSON.stringify(body) };
        },
    };
}
