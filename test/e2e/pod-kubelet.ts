import type { Kube } from "./cluster";

/**
 * The kubelet for the pods of some namespaces that the real ReplicaSet controller creates and
 * nothing runs here: each new pod is marked started (`startTime`) and Running, and Ready unless
 * `hold` is set (a pod that never becomes available, so its Deployment's rollout never finishes).
 */
export class PodKubelet {
    hold = false;

    constructor(
        private readonly kube: Kube,
        private readonly namespaces: readonly string[],
    ) {}

    /** One look at the pods; throws on an answer the API server should not give. */
    async tick(): Promise<void> {
        for (const namespace of this.namespaces) await this.look(namespace);
    }

    private async look(namespace: string): Promise<void> {
        const list = await this.kube.get<any>(`/api/v1/namespaces/${namespace}/pods`);
        for (const pod of list?.items ?? []) {
            if (pod.metadata.deletionTimestamp) continue;
            const ready = pod.status?.conditions?.some((c: any) => c.type === "Ready" && c.status === "True");
            if (ready || (this.hold && pod.status?.startTime)) continue;
            const now = new Date().toISOString().replace(/\.\d+Z$/, "Z");
            const res = await this.kube.request(
                "PATCH",
                `/api/v1/namespaces/${namespace}/pods/${pod.metadata.name}/status`,
                { status: runningPodStatus(!this.hold, pod.status?.startTime ?? now, now) },
                "application/merge-patch+json",
            );
            if (res.status !== 200 && res.status !== 404) throw new Error(`${pod.metadata.name}: ${res.status} ${res.text.slice(0, 300)}`);
        }
    }
}

/** A pod's status as a kubelet reports it once its containers run: Running, and Ready or not. */
export function runningPodStatus(ready: boolean, startTime: string, at: string) {
    const conditions = ["Initialized", "ContainersReady", "Ready"].map((type) => ({
        type,
        status: type === "Initialized" || ready ? "True" : "False",
        lastTransitionTime: at,
    }));
    return { phase: "Running", startTime, conditions };
}
