import type { Kube } from "./cluster";

/** The processes behind the member pods (the fake members, or real `bao server` processes): a replaced pod is a restarted process. */
export interface MemberProcesses {
    readonly names: readonly string[];
    restart(name: string): void | Promise<void>;
}

/**
 * The kubelet for OpenBao's member pods, which the real StatefulSet controller creates and nothing
 * runs here: a new pod starts Running and Ready at `podIp` (where the fake members listen); a pod
 * that replaces another is a fresh OpenBao process, sealed until its sidecar unseals it. The first
 * pods seen are the installed, initialised members.
 */
export class OpenBaoKubelet {
    /** Each member's pod UID as last seen. */
    readonly seen = new Map<string, string>();
    /** Pods that replaced an earlier one, in the order they appeared, with their revision. */
    readonly replacements: { name: string; revision: string }[] = [];

    constructor(
        private readonly kube: Kube,
        private readonly bao: MemberProcesses,
        private readonly namespace: string,
        private readonly podIp: string,
    ) {}

    /** Each member's pod UID, in ordinal order (undefined until seen). */
    uids(): (string | undefined)[] {
        return this.bao.names.map((m) => this.seen.get(m));
    }

    /** One look at the pods; throws on an answer the API server should not give. */
    async tick(): Promise<void> {
        const list = await this.kube.get<any>(`/api/v1/namespaces/${this.namespace}/pods`);
        for (const pod of list?.items ?? []) {
            const name: string = pod.metadata.name;
            if (!this.bao.names.includes(name) || pod.metadata.deletionTimestamp) continue;
            const before = this.seen.get(name);
            if (before !== pod.metadata.uid) {
                // Seen before the restart: a kubelet starts a pod's containers once, so a restart that fails is not tried again.
                this.seen.set(name, pod.metadata.uid);
                if (before !== undefined) {
                    this.replacements.push({ name, revision: pod.metadata.labels?.["controller-revision-hash"] });
                    await this.bao.restart(name);
                }
            }
            if (pod.status?.conditions?.some((c: any) => c.type === "Ready" && c.status === "True")) continue;
            const now = new Date().toISOString().replace(/\.\d+Z$/, "Z");
            const conditions = ["Initialized", "ContainersReady", "Ready"].map((type) => ({
                type,
                status: "True",
                lastTransitionTime: now,
            }));
            const res = await this.kube.request(
                "PATCH",
                `/api/v1/namespaces/${this.namespace}/pods/${name}/status`,
                { status: { phase: "Running", podIP: this.podIp, podIPs: [{ ip: this.podIp }], startTime: now, conditions } },
                "application/merge-patch+json",
            );
            if (res.status !== 200) throw new Error(`${name}: ${res.status} ${res.text.slice(0, 300)}`);
        }
    }
}
