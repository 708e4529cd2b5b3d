import type { Kube, KubeAnswer } from "../../lib/kubernetes/client";
import { FakeOpenBaoMembers } from "./fake-openbao-members";

const NS = "vault-system";
const STS = "openbao-server";

interface Pod {
    uid: string;
    revision: string;
    /** GETs of the pod left before its containers are Ready. */
    startingLooks: number;
}

/**
 * OpenBao's `OnDelete` StatefulSet on an in-process API server (a `Kube`): the StatefulSet, its
 * pods, their Secrets, and the API server's pod proxy to each member's OpenBao
 * (FakeOpenBaoMembers). It plays the StatefulSet controller as Kubernetes documents it for
 * `OnDelete`: a template change gives a new update revision and replaces no pod; a deleted pod
 * is recreated from the update revision; `updatedReplicas` counts the pods on it and
 * `currentRevision` stays. And the kubelet: a new pod turns Ready after a few looks.
 */
export class FakeOpenBaoCluster implements Kube {
    readonly server = "https://api.fake:6443";
    readonly bao: FakeOpenBaoMembers;
    /** Pod deletions, in order. */
    readonly deleted: string[] = [];
    readonly requests: string[] = [];
    /** The controller manager runs: it takes in a new template and recreates deleted pods. */
    controllerRunning = true;
    /** GETs before a recreated pod is Ready. */
    startingLooks = 1;
    updateStrategy = "OnDelete";
    /** A status that lags: the updatedReplicas the controller reports instead of the count. */
    reportedUpdatedReplicas?: number;
    generation = 1;
    observedGeneration = 1;
    updateRevision = "openbao-server-rev1";
    readonly currentRevision = "openbao-server-rev1";
    private pendingRevision?: string;
    readonly pods = new Map<string, Pod>();
    private uids = 0;
    exists = true;

    constructor(readonly replicas = 3) {
        const names = Array.from({ length: replicas }, (_, i) => `${STS}-${i}`);
        this.bao = new FakeOpenBaoMembers(names);
        for (const name of names) this.pods.set(name, { uid: this.uid(), revision: this.updateRevision, startingLooks: 0 });
    }

    /** Helm applied a new template: a new generation, which the controller takes in as a new update revision. */
    setTemplate(revision: string): void {
        this.generation++;
        this.pendingRevision = revision;
        this.tick();
    }

    get updatedReplicas(): number {
        return [...this.pods.values()].filter((p) => p.revision === this.updateRevision).length;
    }

    async request(
        method: string,
        path: string,
        sent?: unknown,
        _contentType?: string,
        headers?: Readonly<Record<string, string>>,
    ): Promise<KubeAnswer> {
        this.requests.push(`${method} ${path}`);
        this.tick();
        const [status, body] = this.answer(method, path, headers?.["X-Vault-Token"], sent);
        return { status, body, text: body === undefined ? "" : JSON.stringify(body) };
    }

    private answer(method: string, path: string, token: string | undefined, sent: unknown): [number, unknown] {
        const proxy = new RegExp(`^/api/v1/namespaces/${NS}/pods/([a-z0-9-]+):8200/proxy(/.*)$`).exec(path);
        if (proxy) {
            const pod = this.pods.get(proxy[1]);
            if (!pod) return [404, status(404, `pods "${proxy[1]}" not found`)];
            // The pod has no IP until it runs: the API server cannot reach it.
            if (pod.startingLooks > 0)
                return [503, status(503, `error trying to reach service: dial tcp 10.0.0.9:8200: connect: connection refused`)];
            const answer = this.bao.handle(proxy[1], method, proxy[2], token, sent);
            return [answer.status, answer.body];
        }
        if (method === "GET" && path === `/apis/apps/v1/namespaces/${NS}/statefulsets/${STS}`) {
            if (!this.exists) return [404, status(404, "not found")];
            return [
                200,
                {
                    metadata: { name: STS, namespace: NS, generation: this.generation },
                    spec: { replicas: this.replicas, updateStrategy: { type: this.updateStrategy } },
                    status: {
                        observedGeneration: this.observedGeneration,
                        replicas: this.pods.size,
                        updatedReplicas: this.reportedUpdatedReplicas ?? this.updatedReplicas,
                        currentRevision: this.currentRevision,
                        updateRevision: this.updateRevision,
                    },
                },
            ];
        }
        const podPath = new RegExp(`^/api/v1/namespaces/${NS}/pods/([a-z0-9-]+)$`).exec(path);
        if (podPath) {
            const pod = this.pods.get(podPath[1]);
            if (method === "DELETE") {
                if (!pod) return [404, status(404, "not found")];
                const uid = (sent as { preconditions?: { uid?: string } } | undefined)?.preconditions?.uid;
                if (uid && uid !== pod.uid)
                    return [409, status(409, `Precondition failed: UID in precondition: ${uid}, UID in object meta: ${pod.uid}`)];
                this.deleted.push(podPath[1]);
                this.pods.delete(podPath[1]);
                return [200, {}];
            }
            if (!pod) return [404, status(404, `pods "${podPath[1]}" not found`)];
            if (pod.startingLooks > 0) pod.startingLooks--;
            return [
                200,
                {
                    metadata: { name: podPath[1], namespace: NS, uid: pod.uid, labels: { "controller-revision-hash": pod.revision } },
                    status: { phase: "Running", conditions: [{ type: "Ready", status: pod.startingLooks === 0 ? "True" : "False" }] },
                },
            ];
        }
        const deployment = this.deploymentAnswer(method, path, sent);
        if (deployment) return deployment;
        if (method === "GET" && path === `/api/v1/namespaces/${NS}/secrets/openbao-server-root-token`) {
            return [200, { data: { root_token: Buffer.from(`${this.bao.rootToken}\n`).toString("base64") } }];
        }
        return [404, status(404, "not found")];
    }

    /**
     * Deployments elsewhere on the cluster (nvcf-api, nvct-api), as the Deployment controller and
     * the kubelet keep them: a new pod template (a `restartedAt` annotation) replaces every pod
     * with one started now, `rolloutLooks` GETs later; the status counts as `kubectl rollout
     * status` reads it.
     */
    readonly deployments = new Map<string, FakeDeployment>();

    addDeployment(namespace: string, name: string, release: string, startTime: string, replicas = 2): FakeDeployment {
        const d: FakeDeployment = {
            release,
            generation: 1,
            observedGeneration: 1,
            replicas,
            annotations: {},
            pods: Array.from({ length: replicas }, (_, i) => ({ name: `${name}-old-${i}`, startTime })),
            restarts: 0,
            rolloutLooks: 0,
        };
        this.deployments.set(`${namespace}/${name}`, d);
        return d;
    }

    /** The kubelet's clock, for new pods' startTime. */
    now = () => new Date();

    /** Rollouts started stay in progress (a pod that never turns available). */
    holdRollouts = false;
    private refusals: { match: RegExp; times: number; hit: number }[] = [];

    /** The API server answers 500 to the next `times` requests matching `METHOD path`. */
    refuse(match: RegExp, times: number): { readonly hit: number } {
        const r = { match, times, hit: 0 };
        this.refusals.push(r);
        return r;
    }

    private deploymentAnswer(method: string, path: string, sent: unknown): [number, unknown] | undefined {
        const refusal = this.refusals.find((r) => r.times > 0 && r.match.test(`${method} ${path}`));
        if (refusal) {
            refusal.times--;
            refusal.hit++;
            return [500, status(500, "injected failure")];
        }
        const all = /^\/apis\/apps\/v1\/namespaces\/([a-z0-9-]+)\/deployments$/.exec(path);
        if (all && method === "GET") {
            const items = [...this.deployments.entries()]
                .filter(([key]) => key.startsWith(`${all[1]}/`))
                .map(([key, d]) => ({
                    metadata: { name: key.split("/")[1], namespace: all[1], annotations: { "meta.helm.sh/release-name": d.release } },
                }));
            return [200, { kind: "DeploymentList", items }];
        }
        const one = /^\/apis\/apps\/v1\/namespaces\/([a-z0-9-]+)\/deployments\/([a-z0-9-]+)$/.exec(path);
        const pods = /^\/api\/v1\/namespaces\/([a-z0-9-]+)\/pods\?labelSelector=(.+)$/.exec(path);
        if (one) {
            const d = this.deployments.get(`${one[1]}/${one[2]}`);
            if (!d) return [404, status(404, `deployments.apps "${one[2]}" not found`)];
            if (method === "PATCH") {
                const annotations = (sent as { spec?: { template?: { metadata?: { annotations?: Record<string, string> } } } })?.spec
                    ?.template?.metadata?.annotations;
                if (annotations && JSON.stringify({ ...d.annotations, ...annotations }) !== JSON.stringify(d.annotations)) {
                    Object.assign(d.annotations, annotations);
                    d.generation++;
                    d.restarts++;
                    d.rolloutLooks = 2;
                }
            } else if (method === "GET" && d.observedGeneration < d.generation && !this.holdRollouts) {
                // The controller and the kubelet: after a few looks, every pod is new and available.
                if (--d.rolloutLooks <= 0) {
                    const started = this.now()
                        .toISOString()
                        .replace(/\.\d+Z$/, "Z");
                    d.pods = Array.from({ length: d.replicas }, (_, i) => ({
                        name: `${one[2]}-gen${d.generation}-${i}`,
                        startTime: started,
                    }));
                    d.observedGeneration = d.generation;
                }
            }
            const done = d.observedGeneration === d.generation;
            return [
                200,
                {
                    metadata: { name: one[2], namespace: one[1], generation: d.generation },
                    spec: { replicas: d.replicas, selector: { matchLabels: { "app.kubernetes.io/name": one[2] } } },
                    status: {
                        observedGeneration: d.observedGeneration,
                        replicas: done ? d.replicas : d.replicas + 1,
                        updatedReplicas: done ? d.replicas : 1,
                        availableReplicas: done ? d.replicas : d.replicas - 1,
                    },
                },
            ];
        }
        if (pods && method === "GET") {
            const name = /app\.kubernetes\.io\/name=([a-z0-9-]+)/.exec(decodeURIComponent(pods[2]))?.[1];
            const d = this.deployments.get(`${pods[1]}/${name}`);
            if (!d) return [200, { kind: "PodList", items: [] }];
            return [
                200,
                {
                    kind: "PodList",
                    items: d.pods.map((p) => ({ metadata: { name: p.name }, status: { phase: "Running", startTime: p.startTime } })),
                },
            ];
        }
        return undefined;
    }

    /** What the controller does between two requests. */
    private tick(): void {
        if (!this.controllerRunning) return;
        if (this.pendingRevision) {
            this.updateRevision = this.pendingRevision;
            this.pendingRevision = undefined;
        }
        this.observedGeneration = this.generation;
        for (let i = 0; i < this.replicas; i++) {
            const name = `${STS}-${i}`;
            if (this.pods.has(name)) continue;
            this.pods.set(name, { uid: this.uid(), revision: this.updateRevision, startingLooks: this.startingLooks });
            this.bao.restart(name);
        }
    }

    private uid(): string {
        return `uid-${++this.uids}`;
    }
}

export interface FakeDeployment {
    /** The Helm release that made it (its `meta.helm.sh/release-name` annotation). */
    readonly release: string;
    generation: number;
    observedGeneration: number;
    replicas: number;
    readonly annotations: Record<string, string>;
    pods: { name: string; startTime: string }[];
    /** Template changes (restarts) seen. */
    restarts: number;
    /** GETs left before a started rollout is done; a test sets it high to hold one. */
    rolloutLooks: number;
}

function status(code: number, message: string) {
    return { kind: "Status", apiVersion: "v1", status: "Failure", message, code };
}

/**
 * An API server in front of FakeOpenBaoCluster: `answer` takes the paths of what it plays, the
 * cluster answers everything else (OpenBao's members, the readers' Deployments).
 */
export abstract class InFrontOfOpenBaoCluster implements Kube {
    readonly server = "https://api.fake:6443";
    readonly cluster = new FakeOpenBaoCluster();
    readonly requests: string[] = [];

    async request(
        method: string,
        path: string,
        sent?: unknown,
        contentType?: string,
        headers?: Readonly<Record<string, string>>,
    ): Promise<KubeAnswer> {
        this.requests.push(`${method} ${path}`);
        const answer = this.answer(method, path, sent);
        if (!answer) return this.cluster.request(method, path, sent, contentType, headers);
        const [status, body] = answer;
        return { status, body, text: JSON.stringify(body) };
    }

    /** `[status, body]` for a path it plays, else undefined. */
    protected abstract answer(method: string, path: string, sent: unknown): [number, unknown] | undefined;
}
