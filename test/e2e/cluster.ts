import { spawn, type ChildProcess } from "node:child_process";
import * as crypto from "node:crypto";
import * as fs from "node:fs";
import * as http from "node:http";
import * as https from "node:https";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import * as k8s from "@kubernetes/client-node";

// In a module of its own, which npm run test:e2e reads before anything loads the Kubernetes client.
export { findTools, type Tools } from "../../scripts/e2e/tools";
import type { Tools } from "../../scripts/e2e/tools";
// In a module of its own, importing nothing (test/e2e/until.ts says why).
export { until } from "./until";

const started = new Set<ChildProcess>();
let exitHook = false;

/**
 * Kills `p` when this test process exits, however it ends (a failed `before`, a timeout, an
 * uncaught error, SIGINT or SIGTERM): no etcd, API server, bao or nats-server outlives its suite.
 */
export function stopWithThisProcess(p: ChildProcess): ChildProcess {
    started.add(p);
    p.once("exit", () => started.delete(p));
    if (!exitHook) {
        exitHook = true;
        const killAll = () => {
            for (const c of started) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
        };
        process.once("exit", killAll);
        for (const signal of ["SIGINT", "SIGTERM"] as const) {
            process.once(signal, () => {
                killAll();
                process.exit(130);
            });
        }
    }
    return p;
}

/** Where the pods "run": an address of this machine the API server may proxy to (it proxies to no loopback address). */
export const podAddress = Object.values(os.networkInterfaces())
    .flat()
    .find((a) => a && a.family === "IPv4" && !a.internal)?.address;

/**
 * Why an end-to-end file does not run here, or false when it does. `ownCluster`: what the file
 * needs of the suite's own API server, so it does not run against E2E_KUBECONFIG.
 */
export function e2eSkip(found: { tools?: Tools; missing: string }, ownCluster?: string): string | false {
    if (process.env.NVCF_E2E !== "1") return "end-to-end suite: run it with npm run test:e2e";
    if (!found.tools) return `end-to-end tools not built (${found.missing}); run scripts/e2e/build-tools.sh`;
    if (ownCluster && process.env.E2E_KUBECONFIG) return ownCluster;
    return false;
}

/**
 * Why a file whose pods run at this machine's address, behind its own API server, does not run
 * here (`why` says what it needs of its own API server), or false when it does.
 */
export function ownClusterSkip(found: { tools?: Tools; missing: string }, why: string): string | false {
    const skip = e2eSkip(found, why);
    if (skip) return skip;
    return podAddress ? false : "no non-loopback IPv4 address for the pods (the API server does not proxy to loopback)";
}

/** SIGTERM, then SIGKILL after 10 s; resolves once the process is gone. */
export async function stopProcess(p: ChildProcess | undefined): Promise<void> {
    if (!p || p.exitCode !== null || p.signalCode !== null) return;
    const exited = new Promise((r) => p.once("exit", r));
    p.kill("SIGTERM");
    const timer = setTimeout(() => p.kill("SIGKILL"), 10_000);
    await exited;
    clearTimeout(timer);
}

/**
 * `count` distinct free ports: every listener stays open until all are taken, since the system
 * may hand a just-closed port out again (etcd and the API server once got the same one, and the
 * API server's exit went unseen behind etcd answering on its port).
 */
export async function freePorts(count: number): Promise<number[]> {
    const servers: net.Server[] = [];
    try {
        for (let i = 0; i < count; i++) {
            const s = net.createServer();
            servers.push(s);
            await new Promise<void>((resolve, reject) => {
                s.on("error", reject);
                s.listen(0, "127.0.0.1", () => resolve());
            });
        }
        return servers.map((s) => (s.address() as net.AddressInfo).port);
    } finally {
        await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
    }
}

async function waitFor(what: string, timeoutMs: number, probe: () => Promise<boolean>, alive?: () => boolean): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
        if (await probe().catch(() => false)) return;
        if (alive && !alive()) throw new Error(`${what}: the process exited`);
        if (Date.now() > deadline) throw new Error(`${what}: not ready after ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 250));
    }
}

function get(url: string, options: https.RequestOptions = {}): Promise<{ status: number; body: string }> {
    const mod = url.startsWith("https:") ? https : http;
    return new Promise((resolve, reject) => {
        const req = mod.request(url, { ...options, method: "GET", timeout: 5000 }, (res) => {
            const chunks: Buffer[] = [];
            res.on("data", (c: Buffer) => chunks.push(c));
            res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }));
        });
        req.on("timeout", () => req.destroy(new Error("timeout")));
        req.on("error", reject);
        req.end();
    });
}

/** A kube-apiserver on etcd, on 127.0.0.1 with free ports, modelled on controller-runtime's envtest. */
export class LocalCluster {
    readonly dir: string;
    kubeconfig = "";
    private procs: ChildProcess[] = [];

    constructor(private readonly tools: Tools) {
        this.dir = fs.mkdtempSync(path.join(os.tmpdir(), "nvcf-e2e-cluster-"));
    }

    private start(bin: string, args: string[], log: string): ChildProcess {
        const out = fs.openSync(path.join(this.dir, log), "a");
        const p = stopWithThisProcess(spawn(bin, args, { stdio: ["ignore", out, out] }));
        fs.closeSync(out);
        this.procs.push(p);
        return p;
    }

    async boot(): Promise<void> {
        const D = this.dir;
        const [cp, pp, ap] = await freePorts(3);
        const etcd = this.start(
            this.tools.etcd,
            [
                "--name=e2e",
                `--data-dir=${D}/etcd`,
                `--listen-client-urls=http://127.0.0.1:${cp}`,
                `--advertise-client-urls=http://127.0.0.1:${cp}`,
                `--listen-peer-urls=http://127.0.0.1:${pp}`,
                `--initial-advertise-peer-urls=http://127.0.0.1:${pp}`,
                `--initial-cluster=e2e=http://127.0.0.1:${pp}`,
                "--unsafe-no-fsync",
                "--log-level=warn",
            ],
            "etcd.log",
        );
        await waitFor(
            "etcd",
            30_000,
            async () => (await get(`http://127.0.0.1:${cp}/health`)).status === 200,
            () => etcd.exitCode === null,
        );

        const { privateKey, publicKey } = crypto.generateKeyPairSync("rsa", { modulusLength: 2048 });
        fs.writeFileSync(`${D}/sa.key`, privateKey.export({ type: "pkcs8", format: "pem" }));
        fs.writeFileSync(`${D}/sa.pub`, publicKey.export({ type: "spki", format: "pem" }));
        const token = crypto.randomBytes(16).toString("hex");
        fs.writeFileSync(`${D}/tokens.csv`, `${token},admin,admin,system:masters\n`);
        const apiserver = this.start(
            this.tools.kubeApiserver,
            [
                `--etcd-servers=http://127.0.0.1:${cp}`,
                "--bind-address=127.0.0.1",
                "--advertise-address=127.0.0.1",
                `--secure-port=${ap}`,
                `--cert-dir=${D}/pki`,
                "--service-cluster-ip-range=10.0.0.0/24",
                "--service-account-issuer=https://kubernetes.default.svc",
                `--service-account-key-file=${D}/sa.pub`,
                `--service-account-signing-key-file=${D}/sa.key`,
                `--token-auth-file=${D}/tokens.csv`,
                "--authorization-mode=RBAC",
                "--disable-admission-plugins=ServiceAccount",
                "--enable-garbage-collector=false",
                "--endpoint-reconciler-type=none",
                "--allow-privileged=true",
            ],
            "apiserver.log",
        );
        const server = `https://127.0.0.1:${ap}`;
        await waitFor(
            "kube-apiserver",
            120_000,
            async () =>
                (await get(`${server}/readyz`, { headers: { Authorization: `Bearer ${token}` }, rejectUnauthorized: false })).status ===
                200,
            () => apiserver.exitCode === null,
        );
        const ca = fs.readFileSync(`${D}/pki/apiserver.crt`).toString("base64");
        this.kubeconfig = [
            "apiVersion: v1",
            "kind: Config",
            "clusters:",
            `- name: e2e\n  cluster:\n    server: ${server}\n    certificate-authority-data: ${ca}`,
            "users:",
            `- name: admin\n  user:\n    token: ${token}`,
            "contexts:",
            "- name: e2e\n  context:\n    cluster: e2e\n    user: admin",
            "current-context: e2e",
            "",
        ].join("\n");
    }

    /**
     * kube-controller-manager with only the given controllers (e.g. `statefulset-controller`),
     * on this API server, serving nothing itself. The suite plays the other controllers.
     */
    startControllerManager(bin: string, controllers: readonly string[]): void {
        const kubeconfig = path.join(this.dir, "controller-manager.kubeconfig");
        fs.writeFileSync(kubeconfig, this.kubeconfig, { mode: 0o600 });
        this.start(
            bin,
            [`--kubeconfig=${kubeconfig}`, `--controllers=${controllers.join(",")}`, "--leader-elect=false", "--secure-port=0", "-v=1"],
            "controller-manager.log",
        );
    }

    async stop(): Promise<void> {
        for (const p of this.procs.reverse()) await stopProcess(p);
        this.procs = [];
    }

    removeDir(): void {
        fs.rmSync(this.dir, { recursive: true, force: true });
    }
}

/** A minimal HTTP client for any kubeconfig (the official client resolves the credentials). */
export class Kube {
    private readonly kc = new k8s.KubeConfig();
    constructor(kubeconfig: string) {
        this.kc.loadFromString(kubeconfig);
    }

    async request<T = any>(
        method: string,
        p: string,
        body?: unknown,
        contentType = "application/json",
        accept = "application/json",
    ): Promise<{ status: number; body: T; text: string }> {
        const server = this.kc.getCurrentCluster()!.server;
        const opts: https.RequestOptions = { method, headers: { "Content-Type": contentType, Accept: accept } };
        await this.kc.applyToHTTPSOptions(opts);
        opts.timeout = 15_000;
        return new Promise((resolve, reject) => {
            const req = https.request(`${server}${p}`, opts, (res) => {
                const chunks: Buffer[] = [];
                res.on("data", (c: Buffer) => chunks.push(c));
                res.on("end", () => {
                    const text = Buffer.concat(chunks).toString("utf8");
                    let parsed: any;
                    try {
                        parsed = JSON.parse(text);
                    } catch {
                        parsed = undefined;
                    }
                    resolve({ status: res.statusCode ?? 0, body: parsed, text });
                });
            });
            req.on("timeout", () => req.destroy(new Error(`${method} ${p}: timeout`)));
            req.on("error", reject);
            req.end(body === undefined ? undefined : JSON.stringify(body));
        });
    }

    async get<T = any>(p: string): Promise<T | undefined> {
        const res = await this.request<T>("GET", p);
        if (res.status === 404) return undefined;
        if (res.status !== 200) throw new Error(`GET ${p}: ${res.status} ${res.text.slice(0, 300)}`);
        return res.body;
    }
}

/**
 * With no kube-controller-manager, deleted Namespaces stay Terminating and the provider waits
 * for them (10 min). While `f` runs, this stands in for the namespace controller's last step
 * (clearing spec.finalizers) and the garbage collector's (clearing the foregroundDeletion
 * finalizer the provider's foreground delete adds). Only for the local API server: a real cluster has the controller.
 */
export function finalizingNamespaces<T>(kube: Kube, f: () => Promise<T>): Promise<T> {
    return whileLooping(async () => {
        const list = await kube.get<any>("/api/v1/namespaces").catch(() => undefined);
        for (const ns of list?.items ?? []) {
            if (!ns.metadata.deletionTimestamp) continue;
            // The provider deletes in the foreground: the GC would clear foregroundDeletion.
            if ((ns.metadata.finalizers ?? []).length > 0) {
                await kube
                    .request(
                        "PATCH",
                        `/api/v1/namespaces/${ns.metadata.name}`,
                        { metadata: { finalizers: null } },
                        "application/merge-patch+json",
                    )
                    .catch(() => undefined);
            }
            if ((ns.spec?.finalizers ?? []).length > 0) {
                await kube
                    .request("PUT", `/api/v1/namespaces/${ns.metadata.name}/finalize`, {
                        ...ns,
                        metadata: { ...ns.metadata, finalizers: [] },
                        spec: { ...ns.spec, finalizers: [] },
                    })
                    .catch(() => undefined);
            }
        }
    }, f);
}

/**
 * Runs `tick` again and again, 300 ms apart, while `f` runs: a controller the local API server
 * lacks, played by the suite. Returns what `f` returns once the last tick is over; `tick` keeps
 * its own errors (one that throws ends the loop and fails the caller).
 */
export async function whileLooping<T>(tick: () => Promise<void>, f: () => Promise<T>): Promise<T> {
    let running = true;
    const loop = (async () => {
        while (running) {
            await tick();
            await new Promise((r) => setTimeout(r, 300));
        }
    })();
    try {
        return await f();
    } finally {
        running = false;
        await loop;
    }
}
