import type * as http from "node:http";
import * as path from "node:path";
import { OPENBAO } from "../../lib/openbao/contract";
import type { Kube } from "./cluster";
import { OpenBaoKubelet } from "./openbao-kubelet";
import { podNetwork } from "./pod-network";
import { BaoCluster, openbaoChartConfig } from "./real-openbao";
import type { Tools } from "./cluster";

/**
 * What three members led by openbao-server-0 live through in a rollout in the runbook's order:
 * the standbys first, highest ordinal first, each back (unsealed) before the next goes, the
 * leader last (after its step-down, which `leaderAtRestart` shows).
 */
export const RUNBOOK_EVENTS = [
    "restart openbao-server-2",
    "unsealed openbao-server-2",
    "restart openbao-server-1",
    "unsealed openbao-server-1",
    "restart openbao-server-0",
    "unsealed openbao-server-0",
] as const;

/**
 * A real OpenBao Raft cluster (BaoCluster, with NVIDIA's JWT plugin) as the pods of the
 * `openbao-server` StatefulSet the real controller makes: the kubelet stand-in starts each new
 * pod, a replaced pod is its member's process restarted (sealed), and the auto-unseal sidecar's
 * part is `unseal`, unless the member is to stay sealed. The pod network carries the API server's
 * pod proxy to the members.
 */
export class OpenBaoPods {
    readonly bao: BaoCluster;
    readonly kubelet: OpenBaoKubelet;
    /** What the members lived through, in order: `restart <pod>`, `unsealed <pod>`. */
    readonly events: string[] = [];
    /** The leader each member's restart found (the rollout steps a leader down before its pod goes). */
    readonly leaderAtRestart = new Map<string, string | undefined>();
    /** Members whose sidecar does not unseal them after their next restart. */
    readonly staysSealed = new Set<string>();
    /** The requests the pod proxy carried to the members. */
    readonly requests: { pod: string; method: string; path: string }[] = [];
    readonly errors: string[] = [];
    /** Members whose process ended by itself and was started again, as a kubelet restarts a container that exits. */
    readonly crashes: string[] = [];
    private network?: http.Server;
    private loop?: Promise<void>;
    private running = false;

    constructor(
        tools: Tools,
        dir: string,
        kube: Kube,
        namespace: string,
        private readonly podIp: string,
    ) {
        this.bao = new BaoCluster(tools.bao, path.join(dir, "bao"), openbaoChartConfig(tools.crds), 3, tools.jwtPlugin);
        this.kubelet = new OpenBaoKubelet(kube, { names: this.bao.names, restart: (name) => this.restart(name) }, namespace, podIp);
    }

    /** The members booted, initialised and unsealed, behind the pod network; the kubelet loop running. */
    async start(): Promise<void> {
        await this.bao.boot();
        this.network = await podNetwork(
            this.podIp,
            OPENBAO.port,
            (pod) => (this.bao.names.includes(pod) ? this.bao.url(pod) : undefined),
            ({ pod, method, path }) => this.requests.push({ pod, method, path }),
        );
        this.running = true;
        this.loop = (async () => {
            while (this.running) {
                await this.restartEnded().catch((err) => this.errors.push(String(err)));
                await this.kubelet.tick().catch((err) => this.errors.push(String(err)));
                await new Promise((r) => setTimeout(r, 100));
            }
        })();
    }

    /** The sidecar's unseal of a member left sealed. */
    async unseal(name: string): Promise<void> {
        await this.bao.unseal(name);
        this.events.push(`unsealed ${name}`);
    }

    /** The members' cluster ID, as `sys/health` answers it. */
    async clusterId(): Promise<string> {
        return (await this.bao.call(this.bao.names[0], "GET", "sys/health")).body.cluster_id;
    }

    async stop(): Promise<void> {
        this.running = false;
        await this.loop;
        // Kept in the suite's output: a member that ended by itself is OpenBao's story, worth reading even when the cases passed.
        for (const c of this.crashes) console.log(`# OpenBao member started again after its process ended: ${c.replaceAll("\n", "\n# ")}`);
        await new Promise((r) => (this.network ? this.network.close(r) : r(undefined)));
        await this.bao.stop();
    }

    private async restart(name: string): Promise<void> {
        this.leaderAtRestart.set(name, await this.bao.leader());
        this.events.push(`restart ${name}`);
        await this.bao.restart(name);
        await this.sidecar(name);
    }

    /** A member whose process ended by itself comes back sealed in the same pod (restartPolicy Always), and its sidecar unseals it. */
    private async restartEnded(): Promise<void> {
        for (const [name, how] of [...this.bao.ended]) {
            this.crashes.push(`${name}: its process ended (${how}); its log ends:\n${this.bao.logTail(name)}`);
            await this.bao.restart(name);
            await this.sidecar(name);
        }
    }

    /** As the auto-unseal sidecar does: it tries again until the member is unsealed (or the suite stops). */
    private async sidecar(name: string): Promise<void> {
        if (this.staysSealed.has(name)) return;
        for (let attempt = 1; ; attempt++) {
            try {
                return await this.unseal(name);
            } catch (err) {
                this.errors.push(`${name}: unseal, attempt ${attempt}: ${String(err)}`);
                if (!this.running || attempt === 5) throw err;
            }
        }
    }
}

/** openbao-server as the chart renders its StatefulSet, as far as the rollout sees it: OnDelete, three members, annotated template. */
export function openbaoStatefulSet(namespace: string, revision: string) {
    const labels = { "app.kubernetes.io/name": "openbao", "app.kubernetes.io/instance": OPENBAO.release, component: "server" };
    return {
        apiVersion: "apps/v1",
        kind: "StatefulSet",
        metadata: { name: OPENBAO.statefulSet, namespace },
        spec: {
            serviceName: "openbao-server-internal",
            podManagementPolicy: "Parallel",
            replicas: 3,
            updateStrategy: { type: "OnDelete" },
            selector: { matchLabels: labels },
            template: {
                metadata: { labels, annotations: { "example.com/revision": revision } },
                spec: {
                    containers: [
                        { name: "openbao", image: "openbao/openbao:2.5.5", ports: [{ name: "http", containerPort: OPENBAO.port }] },
                        { name: "auto-unseal-sidecar", image: "openbao/openbao:2.5.5" },
                    ],
                },
            },
        },
    };
}
