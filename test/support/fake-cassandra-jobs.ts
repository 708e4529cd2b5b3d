import { InFrontOfOpenBaoCluster } from "./fake-openbao-cluster";

const NS = "cassandra-system";

/** What the kubelet makes of a Job's pod: its container ends (exit code, the termination message file), or waits, or keeps running. */
export type PodRun =
    | { exitCode: number; message: string }
    | { waiting: { reason: string; message: string } }
    | { unscheduled: { reason: string; message: string } }
    /** The pod ran past the Job's activeDeadlineSeconds: the job controller deleted it. */
    | { pastDeadline: true }
    | "running";

export interface FakeJob {
    readonly uid: string;
    readonly spec: any;
    /** The container's environment as the kubelet builds it (the Secret's keys, then `env`); undefined until it starts. */
    env?: Record<string, string>;
    run?: PodRun;
}

/**
 * Cassandra's namespace on an in-process API server, in front of FakeOpenBaoCluster (which answers
 * everything else: OpenBao's members, the readers' Deployments): the chart's `cassandra`
 * StatefulSet, Secrets, and batch/v1 Jobs as the job controller and the kubelet run them. A Job's
 * pod (labels `batch.kubernetes.io/controller-uid`, `batch.kubernetes.io/job-name`) starts once
 * the Secrets its container reads exist, and ends as `run` says; then the Job gets its terminal
 * condition (`Complete`, or `Failed` with `BackoffLimitExceeded`; `DeadlineExceeded` when the
 * pod never ends), as Kubernetes documents them for `backoffLimit: 0`.
 */
export class FakeCassandraJobs extends InFrontOfOpenBaoCluster {
    statefulSet?: object = {
        metadata: { name: "cassandra", namespace: NS },
        spec: {
            template: {
                spec: {
                    imagePullSecrets: [{ name: "nvcr-pull" }],
                    nodeSelector: { "nvcf.nvidia.com/workload": "cassandra" },
                    containers: [{ name: "cassandra", image: "nvcr.io/nvidia/nvcf/cassandra:5.0.8-nv-2.0.1" }],
                },
            },
        },
    };
    readonly jobs = new Map<string, FakeJob>();
    /** Every Job ever created, in order (deleted ones included). */
    readonly created: FakeJob[] = [];
    readonly secrets = new Map<string, any>();
    /** What the next pod's container does, given its environment. */
    run: (env: Record<string, string>) => PodRun = () => ({ exitCode: 0, message: "" });
    private uids = 0;

    protected answer(method: string, path: string, sent: any): [number, unknown] | undefined {
        if (path === `/apis/apps/v1/namespaces/${NS}/statefulsets/cassandra` && method === "GET") {
            return this.statefulSet ? [200, this.statefulSet] : [404, failure(404, `statefulsets.apps "cassandra" not found`)];
        }
        const secrets = `/api/v1/namespaces/${NS}/secrets`;
        if (path === secrets && method === "POST") {
            const name = sent.metadata.name;
            if (this.secrets.has(name)) return [409, failure(409, `secrets "${name}" already exists`)];
            // The API server keeps stringData as data.
            const data = Object.fromEntries(Object.entries<string>(sent.stringData ?? {}).map(([k, v]) => [k, b64(v)]));
            const stored = { ...sent, data: { ...(sent.data ?? {}), ...data } };
            delete stored.stringData;
            this.secrets.set(name, stored);
            return [201, stored];
        }
        if (path.startsWith(`${secrets}/`) && method === "DELETE") {
            const name = path.slice(secrets.length + 1);
            if (!this.secrets.delete(name)) return [404, failure(404, `secrets "${name}" not found`)];
            return [200, { kind: "Status", apiVersion: "v1", status: "Success", details: { name, kind: "secrets" } }];
        }
        const jobs = `/apis/batch/v1/namespaces/${NS}/jobs`;
        if (path === jobs && method === "POST") {
            const name = sent.metadata.name;
            if (this.jobs.has(name)) return [409, failure(409, `jobs.batch "${name}" already exists`)];
            const job: FakeJob = { uid: `job-uid-${++this.uids}`, spec: sent.spec };
            this.jobs.set(name, job);
            this.created.push(job);
            return [201, this.jobObject(name, job)];
        }
        if (path.startsWith(`${jobs}/`)) {
            const name = path.slice(jobs.length + 1);
            const job = this.jobs.get(name);
            if (!job) return [404, failure(404, `jobs.batch "${name}" not found`)];
            if (method === "DELETE") {
                this.jobs.delete(name);
                return [200, this.jobObject(name, job)];
            }
            if (method === "GET") {
                this.kubelet(job);
                return [200, this.jobObject(name, job)];
            }
        }
        const pods = new RegExp(`^/api/v1/namespaces/${NS}/pods\\?labelSelector=(.+)$`).exec(path);
        if (pods && method === "GET") {
            const uid = /^batch\.kubernetes\.io\/controller-uid=(.+)$/.exec(decodeURIComponent(pods[1]))?.[1];
            const items = [...this.jobs.entries()]
                .filter(([, j]) => j.uid === uid && j.env && !(j.run && j.run !== "running" && "pastDeadline" in j.run))
                .map(([name, j]) => this.podObject(name, j));
            return [200, { kind: "PodList", apiVersion: "v1", items }];
        }
        return undefined;
    }

    /** The kubelet starts the pod once its Secrets exist (before, it waits: CreateContainerConfigError). */
    private kubelet(job: FakeJob): void {
        if (job.env) return;
        const container = job.spec.template.spec.containers[0];
        const env: Record<string, string> = {};
        for (const from of container.envFrom ?? []) {
            const secret = this.secrets.get(from.secretRef.name);
            if (!secret) return;
            for (const [k, v] of Object.entries<string>(secret.data)) env[k] = Buffer.from(v, "base64").toString("utf8");
        }
        for (const e of container.env ?? []) env[e.name] = e.value;
        job.env = env;
        job.run = this.run(env);
    }

    private jobObject(name: string, job: FakeJob): object {
        const run = job.run;
        const now = "2026-12-03T10:00:00Z";
        let conditions: object[] = [];
        let counts = { active: 1 };
        if (run && run !== "running" && "exitCode" in run) {
            conditions =
                run.exitCode === 0
                    ? [
                          { type: "SuccessCriteriaMet", status: "True", reason: "CompletionsReached", lastTransitionTime: now },
                          { type: "Complete", status: "True", reason: "CompletionsReached", lastTransitionTime: now },
                      ]
                    : [
                          {
                              type: "FailureTarget",
                              status: "True",
                              reason: "BackoffLimitExceeded",
                              message: BACKOFF,
                              lastTransitionTime: now,
                          },
                          { type: "Failed", status: "True", reason: "BackoffLimitExceeded", message: BACKOFF, lastTransitionTime: now },
                      ];
            counts = run.exitCode === 0 ? ({ succeeded: 1 } as never) : ({ failed: 1 } as never);
        } else if (run && run !== "running") {
            conditions = [{ type: "Failed", status: "True", reason: "DeadlineExceeded", message: DEADLINE, lastTransitionTime: now }];
            counts = { failed: 1 } as never;
        }
        return {
            apiVersion: "batch/v1",
            kind: "Job",
            metadata: { name, namespace: NS, uid: job.uid },
            spec: job.spec,
            status: { ...counts, ...(conditions.length > 0 ? { conditions } : {}) },
        };
    }

    private podObject(name: string, job: FakeJob): object {
        const run = job.run!;
        const state =
            run === "running"
                ? { running: { startedAt: "2026-12-03T10:00:00Z" } }
                : "exitCode" in run
                  ? {
                        terminated: {
                            exitCode: run.exitCode,
                            reason: run.exitCode === 0 ? "Completed" : "Error",
                            ...(run.message ? { message: run.message } : {}),
                        },
                    }
                  : "waiting" in run
                    ? { waiting: run.waiting }
                    : {};
        if (run !== "running" && "unscheduled" in run) {
            // The scheduler's condition; the kubelet never saw the pod, so there is no container status.
            return {
                metadata: { name: `${name}-x7k2p`, namespace: NS, labels: { "batch.kubernetes.io/controller-uid": job.uid } },
                status: { phase: "Pending", conditions: [{ type: "PodScheduled", status: "False", ...run.unscheduled }] },
            };
        }
        return {
            metadata: {
                name: `${name}-x7k2p`,
                namespace: NS,
                labels: { "batch.kubernetes.io/controller-uid": job.uid, "batch.kubernetes.io/job-name": name },
            },
            status: {
                phase: run !== "running" && "exitCode" in run ? (run.exitCode === 0 ? "Succeeded" : "Failed") : "Pending",
                containerStatuses: [{ name: "rotate", ready: false, restartCount: 0, state }],
            },
        };
    }
}

// The job controller's condition messages (kubernetes v1.37 pkg/controller/job/job_controller.go).
const BACKOFF = "Job has reached the specified backoff limit";
const DEADLINE = "Job was active longer than specified deadline";

function b64(s: string): string {
    return Buffer.from(s).toString("base64");
}

function failure(code: number, message: string) {
    return { kind: "Status", apiVersion: "v1", status: "Failure", message, code };
}
