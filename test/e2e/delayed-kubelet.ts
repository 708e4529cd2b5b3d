import * as k8s from "@kubernetes/client-node";
import { Kube } from "./cluster";
import { finishedPodStatus, stamp } from "./job-kubelet";
import { runningPodStatus } from "./pod-kubelet";

/** The label the install benchmark's fixture workloads carry: the Helm release they belong to. */
export const BENCH_RELEASE_LABEL = "bench.nvcf/release";

/**
 * The kubelet of the install benchmark, for every pod of one cluster, which the real ReplicaSet
 * and Job controllers create and nothing runs here: a Job's pod ends `Succeeded` after `jobMs` of
 * its release, any other pod is marked Running and Ready after `readyMs`, both counted from when
 * this kubelet first saw it (as a real one starts counting when the pod lands on its node). It
 * watches the pods rather than polling them: the benchmark runs many clusters on one machine,
 * and its stand-ins must not take the CPU the tools it measures run on.
 */
export class DelayedKubelet {
    private readonly seen = new Set<string>();
    private readonly timers = new Set<NodeJS.Timeout>();
    private readonly kube: Kube;
    private readonly config = new k8s.KubeConfig();
    private watch?: AbortController;
    private stopped = false;
    /** The first error, raised by `stop` (an answer the API server should not give). */
    private failure?: Error;

    constructor(
        kubeconfig: string,
        private readonly delays: { readonly readyMs: (release: string) => number; readonly jobMs: (release: string) => number },
    ) {
        this.kube = new Kube(kubeconfig);
        this.config.loadFromString(kubeconfig);
    }

    async start(): Promise<void> {
        await this.follow();
    }

    async stop(): Promise<void> {
        this.stopped = true;
        this.watch?.abort();
        for (const t of this.timers) clearTimeout(t);
        if (this.failure) throw this.failure;
    }

    /** Lists the pods, then watches from that list's version; a watch that ends starts again. */
    private async follow(): Promise<void> {
        if (this.stopped) return;
        const list = await this.kube.get<any>("/api/v1/pods");
        for (const pod of list?.items ?? []) this.schedule(pod);
        this.watch = await new k8s.Watch(this.config).watch(
            "/api/v1/pods",
            { resourceVersion: list?.metadata?.resourceVersion, allowWatchBookmarks: false },
            (type, pod) => {
                if (type === "ADDED" || type === "MODIFIED") this.schedule(pod);
            },
            () => void this.follow().catch((e: unknown) => this.fail(e)),
        );
    }

    private fail(e: unknown): void {
        this.failure ??= e instanceof Error ? e : new Error(String(e));
    }

    private schedule(pod: any): void {
        const { uid, namespace, name, labels, deletionTimestamp, ownerReferences } = pod.metadata;
        if (this.seen.has(uid) || deletionTimestamp || this.stopped) return;
        this.seen.add(uid);
        const release: string = labels?.[BENCH_RELEASE_LABEL] ?? labels?.["app.kubernetes.io/instance"] ?? "";
        const job = (ownerReferences ?? []).some((o: { kind?: string }) => o.kind === "Job");
        const timer = setTimeout(
            () => {
                this.timers.delete(timer);
                this.finish(namespace, name, job, pod.spec.containers[0]).catch((e: unknown) => this.fail(e));
            },
            job ? this.delays.jobMs(release) : this.delays.readyMs(release),
        );
        this.timers.add(timer);
    }

    private async finish(namespace: string, name: string, job: boolean, container: { name: string; image: string }): Promise<void> {
        const at = stamp();
        const status = job ? finishedPodStatus(container, 0, at, at) : runningPodStatus(true, at, at);
        const res = await this.kube.request(
            "PATCH",
            `/api/v1/namespaces/${namespace}/pods/${name}/status`,
            { status },
            "application/merge-patch+json",
        );
        if (res.status !== 200 && res.status !== 404) throw new Error(`${namespace}/${name}: ${res.status} ${res.text.slice(0, 300)}`);
    }
}
