import { spawn, type ChildProcess } from "node:child_process";
import * as fs from "node:fs";
import * as http2 from "node:http2";
import * as net from "node:net";
import * as path from "node:path";
import { freePorts, stopProcess, stopWithThisProcess, type Kube } from "./cluster";

/**
 * The kubelet of the Pulumi Kubernetes Operator's workspace pods, in the operator's local mode
 * (WORKSPACE_LOCALHOST; docs/operator-local-mode.md): for each new pod of a Workspace's
 * StatefulSet, in a directory of its own standing for the pod's `/share` emptyDir, it plays the
 * init containers (`bootstrap`: the agent binary copied in; `fetch`: the container's own script,
 * `agent init` of the git source), gives the container's home what the fleet's workspace image
 * holds (fleet/workspace-image/Dockerfile: npm's cache of the locked packages, a real copy npm
 * may write to, and the provider plugins), starts the `pulumi` container's command (`agent serve`, whose
 * Install then runs `pulumi install` offline) as a process of this
 * machine on a port of its own, and marks the pod Running and Ready once the agent listens. A
 * pod being deleted: its agent is stopped, then the pod is removed (grace 0).
 *
 * The manager dials every workspace at the one WORKSPACE_LOCALHOST address: a router there sends
 * each gRPC stream to the agent of the workspace its bearer token is for (the token's audience is
 * `<workspace>.<namespace>`, operator/internal/controller/auto/connect.go@v2.9.0), as the
 * workspace's Service would, trailers included.
 *
 * The environment of each process is the container's (values, Secret and field references, as
 * a kubelet resolves them) over what the image would give (the tools on PATH, a home, the
 * offline switches) and the pod's identity: a kubeconfig with a TokenRequest token of the pod's
 * ServiceAccount, for the agent's `--auth-mode kube` and for the program (in-cluster config).
 * Nothing of the suite's own environment reaches it.
 */

export interface WorkspaceKubeletOptions {
    /** An admin client of the API server. */
    readonly kube: Kube;
    /** A kubeconfig for the same API server with `token` as its user's. */
    readonly kubeconfigFor: (token: string) => string;
    readonly namespace: string;
    /** Where the pods' directories and logs go. */
    readonly dir: string;
    /** The built workspace agent. */
    readonly agent: string;
    /** The port of WORKSPACE_LOCALHOST (on 127.0.0.1): the router's. */
    readonly port: number;
    /** Each `projectRepo` the Stacks name, with the local repository it stands for (as DNS would map the host). */
    readonly repositories: Readonly<Record<string, string>>;
    /** npm's cache holding the project's locked packages, copied to each pod's home, as the workspace image holds it. */
    readonly npmCache: string;
    /** The image's tools: PATH. */
    readonly path: readonly string[];
    /** Plugins `pulumi install` must find installed: [folder in $PULUMI_HOME/plugins, binary name, target]. */
    readonly plugins: readonly (readonly [string, string, string])[];
    /** More environment for the agent (and so for `pulumi`), e.g. a marker to find its processes by. */
    readonly agentEnv?: NodeJS.ProcessEnv;
}

interface Running {
    readonly name: string;
    /** The Workspace the pod belongs to (its `auto.pulumi.com/workspace-name` label). */
    readonly workspace: string;
    readonly port: number;
    readonly proc: ChildProcess;
    /** The commit its checkout holds (the fetch container's GIT_REVISION) and the checkout. */
    readonly revision: string;
    readonly checkout: string;
    /** The pod's directory: its /share emptyDir (the agent, the checkout) and the container's home and tmp. */
    readonly dir: string;
}

export class WorkspaceKubelet {
    readonly events: string[] = [];
    private readonly running = new Map<string, Running>();
    private readonly seen = new Set<string>();
    private loop?: Promise<void>;
    private active = false;
    private failure?: Error;
    private router?: http2.Http2Server;
    private readonly sessions = new Map<number, http2.ClientHttp2Session>();

    constructor(private readonly o: WorkspaceKubeletOptions) {
        fs.mkdirSync(path.join(o.dir, "pods"), { recursive: true });
    }

    async start(): Promise<void> {
        this.router = http2.createServer();
        this.router.on("stream", (stream, headers) => this.route(stream, headers));
        await new Promise<void>((resolve, reject) => {
            this.router!.once("error", reject);
            this.router!.listen(this.o.port, "127.0.0.1", resolve);
        });
        this.active = true;
        this.loop = (async () => {
            while (this.active) {
                await this.tick().catch((e: Error) => this.log(`tick: ${e.message}`));
                await new Promise((r) => setTimeout(r, 300));
            }
        })();
    }

    async stop(): Promise<void> {
        this.active = false;
        await this.loop;
        for (const uid of [...this.running.keys()]) await this.stopAgent(uid);
        for (const session of this.sessions.values()) session.destroy();
        await new Promise((r) => (this.router ? this.router.close(r) : r(undefined)));
    }

    /** The first pod the stand-in could not start, if any (a test waiting on the operator reports it). */
    get error(): Error | undefined {
        return this.failure;
    }

    /** The agent of a Workspace's newest pod, if one runs: its pid, the commit it serves and its checkout. */
    agent(workspace: string): { pid: number; revision: string; checkout: string; dir: string } | undefined {
        const r = this.newest(workspace);
        return r && { pid: r.proc.pid!, revision: r.revision, checkout: r.checkout, dir: r.dir };
    }

    /** Every running agent's pid. */
    get agentPids(): number[] {
        return [...this.running.values()].map((r) => r.proc.pid!);
    }

    private newest(workspace: string): Running | undefined {
        return [...this.running.values()].filter((r) => r.workspace === workspace).at(-1);
    }

    /** One gRPC stream of the manager's, to the agent of the workspace its token is for. */
    private route(stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders): void {
        const workspace = audienceOf(headers.authorization)?.split(".")[0];
        const target = workspace ? this.newest(workspace) : undefined;
        if (!target) {
            // What a Service with no ready endpoint gives a gRPC client: unavailable.
            this.log(`router: no agent for ${workspace ?? "a stream without a workspace token"} (${headers[":path"]})`);
            stream.respond({ ":status": 200, "content-type": "application/grpc", "grpc-status": "14" }, { endStream: true });
            return;
        }
        let session = this.sessions.get(target.port);
        if (!session || session.closed || session.destroyed) {
            session = http2.connect(`http://127.0.0.1:${target.port}`);
            session.on("error", (e) => this.log(`router: session to ${target.name}: ${e.message}`));
            this.sessions.set(target.port, session);
        }
        const forwarded: http2.OutgoingHttpHeaders = {};
        for (const [k, v] of Object.entries(headers)) if (k !== ":authority" && k !== ":scheme") forwarded[k] = v;
        const upstream = session.request(forwarded);
        let trailers: http2.IncomingHttpHeaders = {};
        upstream.on("response", (h, flags) => {
            const { ":status": status, ...rest } = h;
            // A gRPC "trailers-only" answer is one HEADERS frame that ends the stream: kept so.
            const ended = (flags & http2.constants.NGHTTP2_FLAG_END_STREAM) !== 0;
            stream.respond({ ":status": status, ...rest }, ended ? { endStream: true } : { waitForTrailers: true });
        });
        upstream.on("trailers", (t) => (trailers = t));
        stream.on("wantTrailers", () => stream.sendTrailers(trailers));
        upstream.on("error", (e) => {
            this.log(`router: ${headers[":path"]} to ${target.name}: ${e.message}`);
            if (!stream.destroyed) stream.close(http2.constants.NGHTTP2_INTERNAL_ERROR);
        });
        stream.on("close", () => {
            if (!upstream.destroyed) upstream.close();
        });
        stream.pipe(upstream);
        upstream.pipe(stream);
    }

    /** Every agent's log and the stand-in's own, for the checks that no secret shows. */
    logs(): string {
        const files = fs.readdirSync(this.o.dir).filter((f) => /^(agent|fetch)-.*\.log$/.test(f));
        return [...files.map((f) => fs.readFileSync(path.join(this.o.dir, f), "utf8")), ...this.events].join("\n");
    }

    private log(line: string): void {
        this.events.push(`${new Date().toISOString()} ${line}`);
    }

    private async tick(): Promise<void> {
        const ns = this.o.namespace;
        const list = await this.o.kube.get<any>(`/api/v1/namespaces/${ns}/pods?labelSelector=auto.pulumi.com%2Fcomponent%3Dworkspace`);
        for (const pod of list?.items ?? []) {
            const uid: string = pod.metadata.uid;
            if (pod.metadata.deletionTimestamp) {
                await this.stopAgent(uid);
                const res = await this.o.kube.request("DELETE", `/api/v1/namespaces/${ns}/pods/${pod.metadata.name}`, {
                    gracePeriodSeconds: 0,
                    preconditions: { uid },
                });
                this.log(`removed pod ${pod.metadata.name} (${uid.slice(0, 8)}): ${res.status}`);
                continue;
            }
            if (this.seen.has(uid)) continue;
            this.seen.add(uid);
            try {
                await this.startPod(pod);
            } catch (e) {
                this.failure ??= e as Error;
                this.log(`ERROR pod ${pod.metadata.name}: ${(e as Error).message}`);
            }
        }
    }

    /** A container's environment as a kubelet resolves it. */
    private async containerEnv(c: any, pod: any): Promise<Record<string, string>> {
        const ns = this.o.namespace;
        const env: Record<string, string> = {};
        const secret = async (name: string) => (await this.o.kube.get<any>(`/api/v1/namespaces/${ns}/secrets/${name}`))?.data ?? {};
        const configMap = async (name: string) => (await this.o.kube.get<any>(`/api/v1/namespaces/${ns}/configmaps/${name}`))?.data ?? {};
        for (const from of c.envFrom ?? []) {
            if (from.secretRef)
                for (const [k, v] of Object.entries<string>(await secret(from.secretRef.name)))
                    env[`${from.prefix ?? ""}${k}`] = Buffer.from(v, "base64").toString("utf8");
            if (from.configMapRef)
                for (const [k, v] of Object.entries<string>(await configMap(from.configMapRef.name))) env[`${from.prefix ?? ""}${k}`] = v;
        }
        for (const e of c.env ?? []) {
            const ref = e.valueFrom;
            if (!ref) env[e.name] = e.value ?? "";
            else if (ref.secretKeyRef) {
                const v = (await secret(ref.secretKeyRef.name))[ref.secretKeyRef.key];
                if (v !== undefined) env[e.name] = Buffer.from(v, "base64").toString("utf8");
                else if (!ref.secretKeyRef.optional)
                    throw new Error(`${e.name}: no key ${ref.secretKeyRef.key} in Secret ${ref.secretKeyRef.name}`);
            } else if (ref.configMapKeyRef) {
                const v = (await configMap(ref.configMapKeyRef.name))[ref.configMapKeyRef.key];
                if (v !== undefined) env[e.name] = v;
                else if (!ref.configMapKeyRef.optional) throw new Error(`${e.name}: no key in ConfigMap ${ref.configMapKeyRef.name}`);
            } else if (ref.fieldRef) {
                const fields: Record<string, string> = {
                    "metadata.name": pod.metadata.name,
                    "metadata.namespace": pod.metadata.namespace,
                    "spec.serviceAccountName": pod.spec.serviceAccountName ?? "default",
                    "status.podIP": "127.0.0.1",
                };
                env[e.name] = fields[ref.fieldRef.fieldPath] ?? "";
            } else if (ref.resourceFieldRef) {
                const name = ref.resourceFieldRef.containerName ?? c.name;
                const target = [...pod.spec.containers, ...(pod.spec.initContainers ?? [])].find((x: any) => x.name === name) ?? c;
                const [kind, resource] = String(ref.resourceFieldRef.resource).split(".");
                const v = target.resources?.[kind]?.[resource];
                if (v !== undefined) env[e.name] = String(v);
            }
        }
        return env;
    }

    /** A kubeconfig with a token of the pod's ServiceAccount: what the pod's projected token gives it. */
    private async identity(pod: any, D: string): Promise<string> {
        const sa = pod.spec.serviceAccountName ?? "default";
        const res = await this.o.kube.request("POST", `/api/v1/namespaces/${this.o.namespace}/serviceaccounts/${sa}/token`, {
            apiVersion: "authentication.k8s.io/v1",
            kind: "TokenRequest",
            spec: { expirationSeconds: 3600 },
        });
        if (res.status !== 201) throw new Error(`token of ServiceAccount ${sa}: ${res.status} ${res.text.slice(0, 300)}`);
        const file = path.join(D, "kubeconfig");
        fs.writeFileSync(file, this.o.kubeconfigFor(res.body.status.token), { mode: 0o600 });
        return file;
    }

    private async startPod(pod: any): Promise<void> {
        const { name, uid } = pod.metadata;
        const t0 = Date.now();
        const D = path.join(this.o.dir, "pods", `${name}-${uid.slice(0, 8)}`);
        const share = (s: string) => s.replaceAll("/share", D);
        fs.mkdirSync(path.join(D, "home", ".pulumi"), { recursive: true });
        fs.mkdirSync(path.join(D, "tmp"));
        // The image's environment: its tools, a home, no network.
        const image: Record<string, string> = {
            PATH: this.o.path.join(path.delimiter),
            HOME: path.join(D, "home"),
            TMPDIR: path.join(D, "tmp"),
            LANG: "C.UTF-8",
        };
        // bootstrap: cp /agent /tini /share/ (tini, a zombie reaper, is left out)
        fs.copyFileSync(this.o.agent, path.join(D, "agent"));
        fs.chmodSync(path.join(D, "agent"), 0o755);
        // fetch: the container's own script, with its environment; the repository's URL mapped to the local one.
        const fetch = pod.spec.initContainers?.find((c: any) => c.name === "fetch");
        if (!fetch) throw new Error("no fetch init container");
        const fetchEnv = await this.containerEnv(fetch, pod);
        if (fetchEnv.GIT_URL === undefined) throw new Error("not a git workspace: this stand-in plays git sources only");
        const local = this.o.repositories[fetchEnv.GIT_URL];
        if (!local) throw new Error(`no local repository for ${fetchEnv.GIT_URL}`);
        const [cmd, ...args] = (fetch.command ?? []).concat(fetch.args ?? []).map(share);
        await run(cmd, args, { ...image, ...fetchEnv, GIT_URL: local }, path.join(this.o.dir, `fetch-${name}-${uid.slice(0, 8)}.log`));
        const checkout = fs.realpathSync(path.join(D, "workspace"));
        await run("cp", ["-a", this.o.npmCache, path.join(D, "home", ".npm")], image);
        this.log(`fetched ${name} (${uid.slice(0, 8)}) into ${checkout} in ${Date.now() - t0} ms`);

        // pulumi: /share/tini /share/agent -- serve ... (tini dropped), on the one local address.
        const c = pod.spec.containers.find((x: any) => x.name === "pulumi");
        const command: string[] = [...(c.command ?? []), ...(c.args ?? [])].map(share);
        const serve = command.indexOf("serve");
        const kubeconfig = await this.identity(pod, D);
        const [port] = await freePorts(1);
        const agentArgs = [...command.slice(serve), "--host", "127.0.0.1", "--port", String(port), "--kubeconfig", kubeconfig];
        const pulumiHome = path.join(D, "home", ".pulumi");
        for (const [folder, bin, target] of this.o.plugins) {
            fs.mkdirSync(path.join(pulumiHome, "plugins", folder), { recursive: true });
            fs.symlinkSync(target, path.join(pulumiHome, "plugins", folder, bin));
        }
        const containerEnv = await this.containerEnv(c, pod);
        const env: NodeJS.ProcessEnv = {
            ...image,
            PULUMI_HOME: pulumiHome,
            PULUMI_SKIP_UPDATE_CHECK: "true",
            PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
            PULUMI_DISABLE_REGISTRY_RESOLVE: "true",
            npm_config_offline: "true",
            npm_config_audit: "false",
            npm_config_fund: "false",
            npm_config_update_notifier: "false",
            KUBECONFIG: kubeconfig,
            ...this.o.agentEnv,
            ...Object.fromEntries(Object.entries(containerEnv).map(([k, v]) => [k, share(v)])),
        };
        const out = fs.openSync(path.join(this.o.dir, `agent-${name}-${uid.slice(0, 8)}.log`), "a");
        const proc = stopWithThisProcess(spawn(path.join(D, "agent"), agentArgs, { cwd: checkout, env, stdio: ["ignore", out, out] }));
        fs.closeSync(out);
        const workspace: string = pod.metadata.labels?.["auto.pulumi.com/workspace-name"] ?? name.replace(/-workspace-\d+$/, "");
        this.running.set(uid, { name, workspace, port, proc, revision: fetchEnv.GIT_REVISION, checkout, dir: D });
        if (!(await listening(port, 30_000, () => proc.exitCode === null))) throw new Error(`the agent of ${name} does not listen`);
        const now = new Date().toISOString().replace(/\.\d+Z$/, "Z");
        const status = {
            phase: "Running",
            startTime: now,
            podIP: "127.0.0.1",
            podIPs: [{ ip: "127.0.0.1" }],
            conditions: ["PodScheduled", "Initialized", "ContainersReady", "Ready"].map((type) => ({
                type,
                status: "True",
                lastTransitionTime: now,
            })),
            containerStatuses: [
                {
                    name: "pulumi",
                    ready: true,
                    started: true,
                    restartCount: 0,
                    image: c.image,
                    imageID: "",
                    state: { running: { startedAt: now } },
                },
            ],
        };
        const res = await this.o.kube.request(
            "PATCH",
            `/api/v1/namespaces/${this.o.namespace}/pods/${name}/status`,
            { metadata: { uid }, status },
            "application/merge-patch+json",
        );
        if (res.status !== 200) {
            // Replaced while it started (a new commit): the StatefulSet's new pod is the one to run.
            const now = await this.o.kube.get<any>(`/api/v1/namespaces/${this.o.namespace}/pods/${name}`);
            if (now?.metadata.uid !== uid) {
                this.log(`pod ${name} (${uid.slice(0, 8)}) was replaced before it was Ready`);
                await this.stopAgent(uid);
                return;
            }
            throw new Error(`pod ${name} status: ${res.status} ${res.text.slice(0, 300)}`);
        }
        this.log(`pod ${name} (${uid.slice(0, 8)}) Ready, agent pid ${proc.pid}, ${Date.now() - t0} ms after it was seen`);
    }

    private async stopAgent(uid: string): Promise<void> {
        const r = this.running.get(uid);
        if (!r) return;
        this.running.delete(uid);
        this.sessions.get(r.port)?.destroy();
        this.sessions.delete(r.port);
        await stopProcess(r.proc);
        this.log(`stopped the agent of ${r.name} (${uid.slice(0, 8)})`);
    }
}

function run(cmd: string, args: string[], env: NodeJS.ProcessEnv, logFile?: string): Promise<void> {
    return new Promise((resolve, reject) => {
        const child = spawn(cmd, args, { env, stdio: ["ignore", "pipe", "pipe"] });
        let said = "";
        child.stdout.on("data", (c: Buffer) => (said += c.toString("utf8")));
        child.stderr.on("data", (c: Buffer) => (said += c.toString("utf8")));
        child.on("error", reject);
        child.on("close", (code) => {
            if (logFile) fs.writeFileSync(logFile, said);
            if (code === 0) resolve();
            else reject(new Error(`${path.basename(cmd)} ${args.slice(0, 2).join(" ")} exited ${code}: ${said.slice(-2000)}`));
        });
    });
}

/** The first audience of a bearer JWT (not verified: the agent verifies it). */
function audienceOf(authorization: string | undefined): string | undefined {
    const token = /^Bearer (\S+)$/i.exec(authorization ?? "")?.[1];
    const payload = token?.split(".")[1];
    if (!payload) return undefined;
    try {
        const aud = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")).aud;
        return Array.isArray(aud) ? aud[0] : aud;
    } catch {
        return undefined;
    }
}

async function listening(port: number, ms: number, alive: () => boolean): Promise<boolean> {
    const deadline = Date.now() + ms;
    while (Date.now() < deadline && alive()) {
        const ok = await new Promise<boolean>((resolve) => {
            const s = net.connect(port, "127.0.0.1", () => {
                s.end();
                resolve(true);
            });
            s.on("error", () => resolve(false));
        });
        if (ok) return true;
        await new Promise((r) => setTimeout(r, 200));
    }
    return false;
}
