import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import type { Kube } from "./cluster";

/** A container's environment as the kubelet builds it: `envFrom` Secrets first, then `env` entries over them. */
async function containerEnv(kube: Kube, namespace: string, container: any): Promise<Record<string, string> | undefined> {
    const env: Record<string, string> = {};
    for (const from of container.envFrom ?? []) {
        const name = from.secretRef?.name;
        if (!name) continue;
        const secret = await kube.get<any>(`/api/v1/namespaces/${namespace}/secrets/${name}`);
        // The kubelet waits for a Secret it cannot find (CreateContainerConfigError), then tries again.
        if (!secret) return undefined;
        for (const [k, v] of Object.entries<string>(secret.data ?? {})) env[k] = Buffer.from(v, "base64").toString("utf8");
    }
    for (const e of container.env ?? []) env[e.name] = e.value ?? "";
    return env;
}

/** A pod's status as a kubelet reports it once its one container ran to its end (`restartPolicy: Never`). */
export function finishedPodStatus(
    container: { name: string; image: string },
    exitCode: number,
    startedAt: string,
    finishedAt: string,
    message = "",
) {
    return {
        phase: exitCode === 0 ? "Succeeded" : "Failed",
        startTime: startedAt,
        containerStatuses: [
            {
                name: container.name,
                image: container.image,
                imageID: "",
                ready: false,
                restartCount: 0,
                state: {
                    terminated: {
                        exitCode,
                        reason: exitCode === 0 ? "Completed" : "Error",
                        ...(message ? { message } : {}),
                        startedAt,
                        finishedAt,
                    },
                },
            },
        ],
    };
}

/**
 * The kubelet for the pods of Jobs in one namespace, which the real job controller creates and
 * nothing runs here: each new pod's one container runs once, as a process of this machine, with
 * its command and environment (its Secrets read through the API server), `map` turning the
 * cluster's addresses into this machine's and `path` giving the image's tools. Then the pod's
 * status is what a kubelet reports: `Succeeded` or `Failed`, and the container terminated with
 * its exit code and, as `message`, the file at its `terminationMessagePath`.
 */
export class JobKubelet {
    /** Pods run, in order. */
    readonly ran: string[] = [];
    readonly errors: string[] = [];
    private readonly done = new Set<string>();
    private loop?: Promise<void>;
    private running = false;

    constructor(
        private readonly kube: Kube,
        private readonly namespace: string,
        private readonly dir: string,
        private readonly map: (env: Record<string, string>) => Record<string, string>,
        private readonly toolPath: string,
    ) {}

    start(): void {
        this.running = true;
        this.loop = (async () => {
            while (this.running) {
                await this.tick().catch((err) => this.errors.push(String(err)));
                await new Promise((r) => setTimeout(r, 200));
            }
        })();
    }

    async stop(): Promise<void> {
        this.running = false;
        await this.loop;
    }

    private async tick(): Promise<void> {
        const list = await this.kube.get<any>(`/api/v1/namespaces/${this.namespace}/pods`);
        for (const pod of list?.items ?? []) {
            const uid: string = pod.metadata.uid;
            if (this.done.has(uid) || pod.metadata.deletionTimestamp || !pod.metadata.labels?.["batch.kubernetes.io/controller-uid"])
                continue;
            const container = pod.spec.containers[0];
            const env = await containerEnv(this.kube, this.namespace, container);
            if (!env) continue;
            this.done.add(uid);
            this.ran.push(pod.metadata.name);
            const startedAt = stamp();
            const result = await this.run(pod.metadata.name, container, env);
            const finishedAt = stamp();
            const res = await this.kube.request(
                "PATCH",
                `/api/v1/namespaces/${this.namespace}/pods/${pod.metadata.name}/status`,
                { status: finishedPodStatus(container, result.code, startedAt, finishedAt, result.message) },
                "application/merge-patch+json",
            );
            if (res.status !== 200) throw new Error(`${pod.metadata.name}: ${res.status} ${res.text.slice(0, 300)}`);
        }
    }

    private run(name: string, container: any, env: Record<string, string>): Promise<{ code: number; message: string }> {
        const messageFile = path.join(this.dir, `${name}.termination-log`);
        fs.writeFileSync(messageFile, "");
        // The container's view of its termination message path is this file here.
        const mapped = this.map(env);
        for (const [k, v] of Object.entries(mapped)) if (v === container.terminationMessagePath) mapped[k] = messageFile;
        const [cmd, ...args] = [...(container.command ?? []), ...(container.args ?? [])];
        return new Promise((resolve) => {
            const log = fs.openSync(path.join(this.dir, `${name}.log`), "a");
            const p = spawn(cmd, args, { env: { PATH: `${this.toolPath}:${process.env.PATH}`, ...mapped }, stdio: ["ignore", log, log] });
            fs.closeSync(log);
            p.on("close", (code) => resolve({ code: code ?? 137, message: fs.readFileSync(messageFile, "utf8").slice(0, 4096) }));
        });
    }
}

/** A time as the API server writes it: RFC 3339, whole seconds. */
export function stamp(): string {
    return new Date().toISOString().replace(/\.\d+Z$/, "Z");
}
