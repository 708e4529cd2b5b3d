import * as http from "node:http";
import type { AddressInfo } from "node:net";
import * as crypto from "node:crypto";
import { FUNCTIONS } from "../../lib/nvcf-api/contract";

/**
 * An in-process stand-in for the control plane's API Keys and ICMS endpoints, and for a GPU
 * cluster's API server discovery endpoints, as NVIDIA's registration guide documents them:
 * paths, Host headers, bearer tokens, body shapes and error bodies. ICMS itself is a Java
 * service of the control plane that cannot run here; this fake is what the tests talk to.
 */

export interface RecordedRequest {
    readonly server: "icms" | "kube";
    readonly method: string;
    readonly path: string;
    readonly host: string;
    readonly authorization?: string;
    readonly body: string;
}

export interface StoredCluster {
    clusterId: string;
    clusterName: string;
    /** ICMS has no global NON_NULL: a cluster without a group is listed with null. */
    clusterGroupId: string | null;
    ncaId: string;
    region: string;
    cloudProvider: string;
    jwks: string;
    oidcIssuer: string;
    /** Workloads still running: delete answers 409. */
    activeInstances: boolean;
}

type Fault = { status?: number; reset?: boolean; hang?: boolean; afterHandling?: boolean };

/** A request held at the door: it is recorded, then handled only once released. */
export interface Hold {
    /** Resolves when a matching request has arrived (and waits). */
    readonly arrived: Promise<void>;
    /** Lets the held request (and any later one) through. */
    release(): void;
}

/** Regions ICMS accepts, a subset of its fixed list (lower-cased first). */
const REGIONS = ["us-east-1", "us-west-1", "us-west-2", "eu-west-1", "eastus", "westus2", "us-ashburn-1", "us-central1"];
const RFC1123 = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

export class FakeControlPlane {
    readonly requests: RecordedRequest[] = [];
    readonly clusters = new Map<string, StoredCluster>();
    /** Tokens ICMS accepts; /v1/admin/keys mints and adds them. */
    readonly validTokens = new Set<string>();
    readonly kubeToken = "kube-sa-token";
    /** The NVCF API's functions, one entry per version, as nvcf-core stores them. */
    readonly functions = new Map<string, { id: string; versionId: string; name: string; status: string; containerImage: string }>();
    /** Registry hosts the default account holds a credential for (the API checks a function's image there). */
    readonly registryCredentials = new Set(["nvcr.io"]);

    issuer = "https://kubernetes.default.svc.cluster.local";
    /** Pod proxy paths (`/api/v1/namespaces/<ns>/pods/<pod>:<port>/proxy`) and where they lead. */
    readonly podProxies = new Map<string, string>();
    /** Secrets by `namespace/name`, their data base64-encoded as the API serves it. */
    readonly secrets = new Map<string, Record<string, string>>();
    jwks = JSON.stringify({ keys: [{ kty: "RSA", kid: "key-1", n: "abc", e: "AQAB", use: "sig", alg: "RS256" }] });
    private faults: { server: "icms" | "kube"; match: RegExp; fault: Fault; times: number }[] = [];
    private holds: { match: RegExp; arrive: () => void; gate: Promise<void> }[] = [];
    private icmsServer?: http.Server;
    private kubeServer?: http.Server;
    private minted = 0;
    private nextId = 1;

    get icmsUrl(): string {
        return `http://127.0.0.1:${(this.icmsServer!.address() as AddressInfo).port}`;
    }
    get kubeUrl(): string {
        return `http://127.0.0.1:${(this.kubeServer!.address() as AddressInfo).port}`;
    }

    /** A kubeconfig for the fake API server, with a bearer token. */
    kubeconfig(context = "gpu"): string {
        return [
            "apiVersion: v1",
            "kind: Config",
            `current-context: ${context}`,
            "clusters:",
            // client-node refuses plain http unless verification is off; a real API server is https.
            `- name: gpu\n  cluster:\n    server: ${this.kubeUrl}\n    insecure-skip-tls-verify: true`,
            "users:",
            `- name: admin\n  user:\n    token: ${this.kubeToken}`,
            "contexts:",
            `- name: ${context}\n  context:\n    cluster: gpu\n    user: admin`,
            "",
        ].join("\n");
    }

    async start(): Promise<void> {
        this.icmsServer = await listen((req, body, res) => this.icms(req, body, res), this, "icms");
        this.kubeServer = await listen((req, body, res) => this.kube(req, body, res), this, "kube");
    }

    async stop(): Promise<void> {
        for (const server of [this.icmsServer, this.kubeServer]) {
            server?.closeAllConnections();
            await new Promise((r) => server?.close(r));
        }
    }

    /** Forgets requests, clusters and faults, between tests. */
    reset(): void {
        this.requests.length = 0;
        this.clusters.clear();
        this.faults = [];
    }

    /** Makes the next `times` requests matching `match` fail as described. */
    inject(server: "icms" | "kube", match: RegExp, fault: Fault, times = 1): void {
        this.faults.push({ server, match, fault, times });
    }

    /** Holds the next ICMS request matching `METHOD path` until released: a call in flight, for as long as a test needs. */
    hold(match: RegExp): Hold {
        let arrive!: () => void;
        let release!: () => void;
        const arrived = new Promise<void>((r) => (arrive = r));
        const gate = new Promise<void>((r) => (release = r));
        const entry = { match, arrive, gate };
        this.holds.push(entry);
        return {
            arrived,
            release: () => {
                this.holds = this.holds.filter((h) => h !== entry);
                release();
            },
        };
    }

    /** @internal */
    async waitAtDoor(method: string, path: string): Promise<void> {
        const held = this.holds.find((h) => h.match.test(`${method} ${path}`));
        if (!held) return;
        held.arrive();
        await held.gate;
    }

    /** Registers a cluster directly, as if someone had run `nvcf-cli cluster register`. */
    seed(cluster: Omit<StoredCluster, "clusterId" | "clusterGroupId" | "activeInstances"> & Partial<StoredCluster>): StoredCluster {
        const stored: StoredCluster = {
            clusterId: `cluster-${this.nextId++}`,
            clusterGroupId: `group-${this.nextId++}`,
            activeInstances: false,
            ...cluster,
        };
        this.clusters.set(stored.clusterId, stored);
        return stored;
    }

    /** @internal */
    takeFault(server: "icms" | "kube", method: string, path: string): Fault | undefined {
        const entry = this.faults.find((f) => f.server === server && f.times > 0 && f.match.test(`${method} ${path}`));
        if (!entry) return undefined;
        entry.times--;
        return entry.fault;
    }

    private icms(req: http.IncomingMessage, body: string, res: Reply): void {
        const path = (req.url ?? "").split("?")[0];
        const method = req.method ?? "";
        if (method === "POST" && path === "/v1/admin/keys") {
            if (req.headers.authorization) return res(400, { error: "the admin issuer proxy takes no credentials" });
            const value = `admin-jwt-${++this.minted}`;
            this.validTokens.add(value);
            return res(200, { id: `key-${this.minted}`, value, status: "ACTIVE", expires_at: "2099-01-01T00:00:00Z" });
        }
        const token = (req.headers.authorization ?? "").replace(/^Bearer /, "");
        if (!this.validTokens.has(token)) return res(401, { error: "Unauthorized" });

        if (path === FUNCTIONS.path || path.startsWith(`${FUNCTIONS.path}/`)) return this.nvcfFunctions(method, path, body, res);

        let m = /^\/v1\/accounts\/([^/]+)\/clusters$/.exec(path);
        if (m && method === "POST") return this.register(decodeURIComponent(m[1]), body, res);
        if (m && method === "GET") {
            const nca = decodeURIComponent(m[1]);
            return res(200, [...this.clusters.values()].filter((c) => c.ncaId === nca).map(view));
        }
        m = /^\/v1\/accounts\/([^/]+)\/clusters\/([^/]+)$/.exec(path);
        if (m && method === "GET") {
            const [nca, id] = [decodeURIComponent(m[1]), decodeURIComponent(m[2])];
            const c = this.clusters.get(id);
            if (!c) return res(404, { error: `Can not find any cluster for ${nca} ncaId and ${id} clusterId` });
            // ClusterListingService: another account's cluster is a conflict, not a miss.
            if (c.ncaId !== nca) return res(409, { error: `${nca} ncaId doesn't exists for ${id} clusterId` });
            return res(200, view(c));
        }
        if (m && method === "DELETE") {
            const [nca, id] = [decodeURIComponent(m[1]), decodeURIComponent(m[2])];
            const c = this.clusters.get(id);
            if (!c) return res(404, { error: `Could not find any cluster registered with id ${id}` });
            if (c.ncaId !== nca)
                return res(409, {
                    error: `The provided cluster ID is registered with different ncaId. Specified ncaId ${nca}, ncaId associated for cluster ${c.ncaId}`,
                });
            if (c.activeInstances)
                return res(409, { error: "Cluster un-registration failed, terminate following active instances [instance-1]" });
            this.clusters.delete(id);
            return res(200, "");
        }
        m = /^\/v1\/nvca\/clusters\/([^/]+)\/jwks$/.exec(path);
        if (m && method === "PUT") {
            const c = this.clusters.get(decodeURIComponent(m[1]));
            if (!c) return res(404, { error: "cluster not found" });
            const update = JSON.parse(body) as { jwks: string; oidcIssuer?: string };
            const clash = this.fingerprintOwner(update.jwks, c.clusterId);
            if (clash)
                return res(409, {
                    error: `JWKS signing keys are already registered by cluster ${clash}. Each cluster must have unique signing keys.`,
                });
            c.jwks = update.jwks;
            if (update.oidcIssuer) c.oidcIssuer = update.oidcIssuer;
            return res(200, "");
        }
        return res(404, { error: `no route ${method} ${path}` });
    }

    /**
     * nvcf-core's FunctionManagementController at NVIDIA/nvcf@fadc0f81: create (200, `{function}`,
     * INACTIVE, the image's registry host recognised and the account holding a credential for it), list (one entry
     * per version), delete a version (204; 404 unknown). Errors are Spring ProblemDetails.
     */
    private nvcfFunctions(method: string, path: string, raw: string, res: Reply): void {
        const problem = (status: number, title: string, detail: string) =>
            res(status, { type: "about:blank", title, status, detail, instance: path });
        if (method === "GET" && path === FUNCTIONS.path) return res(200, { functions: [...this.functions.values()] });
        if (method === "POST" && path === FUNCTIONS.path) {
            const b = JSON.parse(raw) as { name?: string; inferenceUrl?: string; containerImage?: string };
            if (!b.name || !FUNCTIONS.namePattern.test(b.name) || !b.inferenceUrl) return problem(400, "Bad Request", "Invalid request");
            const image = b.containerImage ?? "";
            const host = image.includes("/") ? image.slice(0, image.indexOf("/")) : "";
            if (!/[.:]/.test(host)) return problem(400, "Bad Request", "Invalid registry URL");
            // application.yaml's nvcf.registries.recognized.container (application-ncp.yaml makes ngc nvcr.io).
            const recognized =
                ["nvcr.io", "docker.io", "public.ecr.aws", "cr.volces.com"].includes(host) ||
                /\.(dkr\.ecr\.[a-z0-9-]+\.amazonaws\.com|azurecr\.io)$/.test(host);
            if (!recognized) return problem(400, "Bad Request", `Unsupported registry hostname ${host} for registry type CONTAINER`);
            if (!this.registryCredentials.has(host))
                return problem(400, "Bad Request", `Missing CONTAINER registry credential for hostname '${host}'`);
            const fn = {
                id: crypto.randomUUID(),
                versionId: crypto.randomUUID(),
                name: b.name,
                status: FUNCTIONS.createdStatus,
                containerImage: image,
            };
            this.functions.set(fn.versionId, fn);
            return res(200, { function: fn });
        }
        const m = /^\/v2\/nvcf\/functions\/([^/]+)\/versions\/([^/]+)$/.exec(path);
        if (m && method === "DELETE") {
            const fn = this.functions.get(decodeURIComponent(m[2]));
            if (!fn || fn.id !== decodeURIComponent(m[1]))
                return problem(404, "Not Found", `Function id '${m[1]}', version '${m[2]}': Not found in account 'nvcf-default'`);
            this.functions.delete(fn.versionId);
            return res(204, "");
        }
        return problem(404, "Not Found", `No static resource ${path.slice(1)}.`);
    }

    private register(nca: string, raw: string, res: Reply): void {
        const b = JSON.parse(raw) as Record<string, unknown>;
        const name = String(b.clusterName ?? "");
        if (typeof b.jwks !== "string") return res(400, { error: "jwks must be a string" });
        if (b.ncaId !== nca) return res(400, { error: "the NCA ID of the path and the body differ" });
        if (name.length > 32 || String(b.clusterGroupName ?? "").length > 32)
            return res(412, { error: "clusterName must be at most 32 characters" });
        if (!RFC1123.test(name)) return res(400, { error: `Invalid clusterName ${name}` });
        const region = String(b.region ?? "").toLowerCase();
        if (!REGIONS.includes(region)) return res(400, { error: `The provided ${region} region is not one of the supported regions` });
        if ([...this.clusters.values()].some((c) => c.ncaId === nca && c.clusterName === name)) {
            return res(400, { error: `Cluster with clusterName ${name} already exists` });
        }
        const clash = this.fingerprintOwner(b.jwks, undefined);
        if (clash)
            return res(409, {
                error: `JWKS signing keys are already registered by cluster ${clash}. Each cluster must have unique signing keys.`,
            });
        const stored = this.seed({
            clusterName: name,
            ncaId: nca,
            region,
            cloudProvider: String(b.cloudProvider),
            jwks: b.jwks,
            oidcIssuer: String(b.oidcIssuer ?? ""),
        });
        return res(200, { clusterId: stored.clusterId, clusterGroupId: stored.clusterGroupId });
    }

    private fingerprintOwner(jwks: string, except: string | undefined): string | undefined {
        const kids = (JSON.parse(jwks) as { keys: { kid: string }[] }).keys
            .map((k) => k.kid)
            .sort()
            .join(",");
        for (const c of this.clusters.values()) {
            if (c.clusterId === except) continue;
            const other = (JSON.parse(c.jwks) as { keys: { kid: string }[] }).keys
                .map((k) => k.kid)
                .sort()
                .join(",");
            if (other === kids) return c.clusterId;
        }
        return undefined;
    }

    /** The API server's pod proxy: the request goes on to the pod with its own headers. */
    private forward(req: http.IncomingMessage, body: string, target: string, res: Reply): void {
        const headers = { ...req.headers };
        delete headers.host;
        delete headers.authorization;
        const out = http.request(target, { method: req.method, headers }, (answer) => {
            const chunks: Buffer[] = [];
            answer.on("data", (c: Buffer) => chunks.push(c));
            answer.on("end", () => res(answer.statusCode ?? 502, Buffer.concat(chunks).toString("utf8")));
        });
        out.on("error", (err) => res(503, { kind: "Status", code: 503, message: `error trying to reach service: ${err.message}` }));
        out.end(body);
    }

    private kube(req: http.IncomingMessage, body: string, res: Reply): void {
        if (req.headers.authorization !== `Bearer ${this.kubeToken}`)
            return res(401, { kind: "Status", code: 401, message: "Unauthorized" });
        if (req.url === "/.well-known/openid-configuration") {
            return res(200, { issuer: this.issuer, jwks_uri: `${this.issuer}/openid/v1/jwks`, response_types_supported: ["id_token"] });
        }
        if (req.url === "/openid/v1/jwks") {
            // As kube-apiserver: the keys exist only as application/jwk-set+json.
            if (!String(req.headers.accept ?? "").includes("application/jwk-set+json")) {
                return res(406, { kind: "Status", code: 406, message: "Available representations: application/jwk-set+json" });
            }
            return res(200, this.jwks);
        }
        const url = req.url ?? "";
        const secret = /^\/api\/v1\/namespaces\/([^/]+)\/secrets\/([^/?]+)$/.exec(url);
        if (secret && req.method === "GET") {
            const data = this.secrets.get(`${secret[1]}/${secret[2]}`);
            if (!data) return res(404, { kind: "Status", code: 404, message: `secrets "${secret[2]}" not found` });
            return res(200, { kind: "Secret", metadata: { name: secret[2], namespace: secret[1] }, data });
        }
        for (const [prefix, target] of this.podProxies) {
            if (url.startsWith(`${prefix}/`)) return this.forward(req, body, `${target}${url.slice(prefix.length)}`, res);
        }
        return res(404, { kind: "Status", code: 404 });
    }
}

type Reply = (status: number, body: unknown) => void;

function view(c: StoredCluster) {
    return {
        clusterId: c.clusterId,
        clusterName: c.clusterName,
        clusterGroupId: c.clusterGroupId,
        ncaId: c.ncaId,
        region: c.region,
        status: "READY",
    };
}

function listen(
    handler: (req: http.IncomingMessage, body: string, res: Reply) => void,
    fake: FakeControlPlane,
    name: "icms" | "kube",
): Promise<http.Server> {
    const server = http.createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on("data", (c: Buffer) => chunks.push(c));
        req.on("end", async () => {
            const body = Buffer.concat(chunks).toString("utf8");
            const path = (req.url ?? "").split("?")[0];
            fake.requests.push({
                server: name,
                method: req.method ?? "",
                path,
                host: req.headers.host ?? "",
                authorization: req.headers.authorization,
                body,
            });
            if (name === "icms") await fake.waitAtDoor(req.method ?? "", path);
            const fault = fake.takeFault(name, req.method ?? "", path);
            if (fault?.hang) return;
            if (fault?.reset) return req.socket.destroy();
            const reply: Reply = (status, payload) => {
                res.writeHead(fault?.afterHandling ? (fault.status ?? 503) : status, { "Content-Type": "application/json" });
                res.end(typeof payload === "string" ? payload : JSON.stringify(payload));
            };
            if (fault?.status && !fault.afterHandling) return reply(fault.status, { error: "injected failure" });
            handler(req, body, reply);
        });
    });
    return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}
