import * as http from "node:http";
import type { AddressInfo } from "node:net";
import { OPENBAO_API } from "../../lib/openbao/contract";
import { sealStatusAnswer } from "./openbao-answers";

/**
 * An in-process OpenBao for exactly the paths the grant revocation uses, with OpenBao's HTTP
 * behaviour for them: `X-Vault-Token` auth (403 `{"errors":["permission denied"]}`), 503 while
 * sealed, DELETE answering 204 whether or not the object exists, LIST (`GET ?list=true`)
 * answering `{"data":{"keys":[...]}}` or 404 when empty, 404 for an unmounted path. For the unit
 * suite's faults; test/openbao-answers.test.ts holds its answers to a recording of the real OpenBao.
 */
export class FakeOpenBao {
    readonly rootToken = "root";
    sealed = false;
    /** Mounted paths and the objects under them. */
    readonly store = new Map<string, Set<string>>([
        ["auth/jwt/role", new Set()],
        [OPENBAO_API.aclPolicies, new Set(["default", "root"])],
        ["services/nvcf-api/jwt/roles", new Set()],
    ]);
    readonly requests: { method: string; path: string; token?: string }[] = [];
    /** Deletes answered 204 that take no effect (a grant something puts back at once). */
    deletesIgnored = false;
    /** Requests to answer with an error status, by `METHOD path` pattern. */
    private faults: { match: RegExp; status?: number; hang?: boolean; times: number }[] = [];
    private server?: http.Server;

    get url(): string {
        return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`;
    }

    /** Back to an unsealed server with no grant, no faults and no recorded requests. */
    reset(): void {
        this.sealed = false;
        this.requests.length = 0;
        this.faults = [];
        this.deletesIgnored = false;
        for (const names of this.store.values()) names.clear();
        this.store.get(OPENBAO_API.aclPolicies)!.add("default").add("root");
    }

    inject(match: RegExp, fault: { status?: number; hang?: boolean }, times = 1): void {
        this.faults.push({ match, ...fault, times });
    }

    async start(): Promise<void> {
        this.server = http.createServer((req, res) => {
            const chunks: Buffer[] = [];
            req.on("data", (c: Buffer) => chunks.push(c));
            req.on("end", () => this.handle(req, res));
        });
        await new Promise<void>((r) => this.server!.listen(0, "127.0.0.1", () => r()));
    }

    async stop(): Promise<void> {
        this.server?.closeAllConnections();
        await new Promise((r) => this.server?.close(r));
    }

    private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
        const url = new URL(req.url ?? "/", "http://x");
        const path = url.pathname.replace(/^\/v1\//, "");
        const method = req.method ?? "";
        const token = req.headers["x-vault-token"] as string | undefined;
        this.requests.push({ method, path, token });
        const reply = (status: number, body?: unknown) => {
            res.writeHead(status, { "Content-Type": "application/json" });
            res.end(body === undefined ? "" : JSON.stringify(body));
        };
        const fault = this.faults.find((f) => f.times > 0 && f.match.test(`${method} ${path}`));
        if (fault) {
            fault.times--;
            if (fault.hang) return;
            return reply(fault.status ?? 500, { errors: ["injected failure"] });
        }
        // The unauthenticated seal status the health gate reads, answered sealed or not.
        if (method === "GET" && path === OPENBAO_API.sealStatus) {
            const status = sealStatusAnswer({ sealed: this.sealed });
            return reply(200, status);
        }
        if (this.sealed) return reply(503, { errors: ["Vault is sealed"] });
        if (token !== this.rootToken) return reply(403, { errors: ["permission denied"] });

        const listing = url.searchParams.get("list") === "true" || method === "LIST";
        const mount = [...this.store.keys()].find((m) => path === m || path.startsWith(`${m}/`));
        if (!mount) return reply(404, { errors: [`no handler for route "${path}". route entry not found.`] });
        const names = this.store.get(mount)!;
        const name = path.slice(mount.length + 1);
        if (listing && method === "GET" && name === "") {
            return names.size === 0 ? reply(404, { errors: [] }) : reply(200, { data: { keys: [...names].sort() } });
        }
        if (method === "DELETE" && name) {
            if (!this.deletesIgnored) names.delete(name);
            return reply(204);
        }
        if ((method === "POST" || method === "PUT") && name) {
            names.add(name);
            return reply(204);
        }
        if (method === "GET" && name) return names.has(name) ? reply(200, { data: { name } }) : reply(404, { errors: [] });
        return reply(405, { errors: ["unsupported operation"] });
    }
}
