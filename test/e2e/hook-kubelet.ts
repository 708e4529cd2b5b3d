import type { Kube } from "./cluster";
import { finishedPodStatus, stamp } from "./job-kubelet";

/**
 * The kubelet for the charts' `helm test` Pods (annotated `helm.sh/hook: test`), which nothing
 * schedules or runs here: each new one is reported as a kubelet reports a container that ran to
 * its end (`restartPolicy: Never`): phase `Succeeded` with exit code 0, or, for a name in `failing`,
 * `Failed` with exit code 1, as busybox's wget exits when it cannot reach the Service.
 */
export class HookKubelet {
    /** Each test Pod run: its namespace/name, image and arguments. */
    readonly ran: { pod: string; image: string; args: string[] }[] = [];
    readonly failing = new Set<string>();
    readonly errors: string[] = [];
    private readonly done = new Set<string>();
    private loop?: Promise<void>;
    private running = false;

    constructor(
        private readonly kube: Kube,
        private readonly namespaces: readonly string[],
    ) {}

    start(): void {
        this.running = true;
        this.loop = (async () => {
            while (this.running) {
                for (const ns of this.namespaces) await this.look(ns).catch((err: unknown) => this.errors.push(String(err)));
                await new Promise((r) => setTimeout(r, 300));
            }
        })();
    }

    async stop(): Promise<void> {
        this.running = false;
        await this.loop;
    }

    private async look(namespace: string): Promise<void> {
        const list = await this.kube.get<any>(`/api/v1/namespaces/${namespace}/pods`);
        for (const pod of list?.items ?? []) {
            const uid: string = pod.metadata.uid;
            if (this.done.has(uid) || pod.metadata.deletionTimestamp || pod.metadata.annotations?.["helm.sh/hook"] !== "test") continue;
            this.done.add(uid);
            const container = pod.spec.containers[0];
            const name = `${namespace}/${pod.metadata.name}`;
            this.ran.push({ pod: name, image: container.image, args: container.args ?? [] });
            const exitCode = this.failing.has(pod.metadata.name) ? 1 : 0;
            const now = stamp();
            const res = await this.kube.request(
                "PATCH",
                `/api/v1/namespaces/${namespace}/pods/${pod.metadata.name}/status`,
                { status: finishedPodStatus(container, exitCode, now, now) },
                "application/merge-patch+json",
            );
            if (res.status !== 200 && res.status !== 404) this.errors.push(`${name}: ${res.status} ${res.text.slice(0, 300)}`);
        }
    }
}
