import { excerpt } from "../http/client";
import type { Kube } from "./client";

/** A Deployment as a restart needs it: its generations, replica counts and pod selector. */
export interface DeploymentState {
    readonly generation: number;
    readonly observedGeneration: number;
    readonly replicas: number;
    /** status.replicas: every pod of the Deployment, old and new ReplicaSets together. */
    readonly podCount: number;
    readonly updatedReplicas: number;
    readonly availableReplicas: number;
    readonly matchLabels: Readonly<Record<string, string>>;
}

/** A pod of a Deployment: when it started, and whether it is going. */
export interface WorkloadPod {
    readonly name: string;
    /** `status.startTime`; absent until the kubelet has started it. */
    readonly startTime?: string;
    readonly terminating: boolean;
}

const num = (v: unknown): number => (typeof v === "number" ? v : 0);

/**
 * The Deployments a Helm release made in `namespace`: Helm 3 marks every object it creates with
 * the annotation `meta.helm.sh/release-name`, so a chart's naming (fullnameOverride, suffixes)
 * does not matter.
 */
export async function releaseDeployments(kube: Kube, namespace: string, release: string): Promise<string[]> {
    const res = await kube.request("GET", `/apis/apps/v1/namespaces/${namespace}/deployments`);
    if (res.status !== 200) throw new Error(`could not list the deployments in ${namespace}: HTTP ${res.status}: ${excerpt(res.text)}`);
    const items: unknown[] = Array.isArray(res.body?.items) ? res.body.items : [];
    return items
        .map((item) => (item as { metadata?: { name?: string; annotations?: Record<string, string> } }).metadata)
        .filter((m) => m?.annotations?.["meta.helm.sh/release-name"] === release && m.name)
        .map((m) => m!.name!)
        .sort();
}

export async function readDeployment(kube: Kube, namespace: string, name: string): Promise<DeploymentState | undefined> {
    const path = `/apis/apps/v1/namespaces/${namespace}/deployments/${name}`;
    const res = await kube.request("GET", path);
    if (res.status === 404) return undefined;
    if (res.status !== 200) throw new Error(`could not read deployment ${namespace}/${name}: HTTP ${res.status}: ${excerpt(res.text)}`);
    const d = res.body;
    return {
        generation: num(d?.metadata?.generation),
        observedGeneration: num(d?.status?.observedGeneration),
        replicas: typeof d?.spec?.replicas === "number" ? d.spec.replicas : 1,
        podCount: num(d?.status?.replicas),
        updatedReplicas: num(d?.status?.updatedReplicas),
        availableReplicas: num(d?.status?.availableReplicas),
        matchLabels: (d?.spec?.selector?.matchLabels ?? {}) as Record<string, string>,
    };
}

/** The pods the Deployment's selector matches (its `matchLabels`; NVIDIA's charts select by labels only). */
export async function deploymentPods(kube: Kube, namespace: string, d: DeploymentState): Promise<WorkloadPod[]> {
    const selector = Object.entries(d.matchLabels)
        .map(([k, v]) => `${k}=${v}`)
        .join(",");
    const res = await kube.request("GET", `/api/v1/namespaces/${namespace}/pods?labelSelector=${encodeURIComponent(selector)}`);
    if (res.status !== 200) throw new Error(`could not list the pods in ${namespace}: HTTP ${res.status}: ${excerpt(res.text)}`);
    const items: unknown[] = Array.isArray(res.body?.items) ? res.body.items : [];
    return items.map((item) => {
        const p = item as { metadata?: { name?: string; deletionTimestamp?: string }; status?: { startTime?: string } };
        return {
            name: p.metadata?.name ?? "",
            ...(p.status?.startTime ? { startTime: p.status.startTime } : {}),
            terminating: p.metadata?.deletionTimestamp !== undefined,
        };
    });
}

/**
 * `kubectl rollout restart`: the pod-template annotation it sets, so the Deployment replaces its
 * pods in its own rolling way. The same `at` again changes nothing, so a rerun does not restart twice.
 */
export async function restartDeployment(kube: Kube, namespace: string, name: string, at: string): Promise<void> {
    const patch = { spec: { template: { metadata: { annotations: { "kubectl.kubernetes.io/restartedAt": at } } } } };
    const res = await kube.request(
        "PATCH",
        `/apis/apps/v1/namespaces/${namespace}/deployments/${name}`,
        patch,
        "application/strategic-merge-patch+json",
    );
    if (res.status !== 200) throw new Error(`could not restart deployment ${namespace}/${name}: HTTP ${res.status}: ${excerpt(res.text)}`);
}

/** What a Deployment still lacks to have rolled out (`kubectl rollout status`'s conditions), or undefined once it has. */
export function rolloutPending(d: DeploymentState): string | undefined {
    if (d.observedGeneration < d.generation) return `its controller has not seen generation ${d.generation} yet`;
    if (d.updatedReplicas < d.replicas) return `${d.updatedReplicas} of ${d.replicas} pods are on the new template`;
    if (d.podCount > d.updatedReplicas) return `${d.podCount - d.updatedReplicas} old pods are still terminating`;
    if (d.availableReplicas < d.updatedReplicas) return `${d.availableReplicas} of ${d.updatedReplicas} new pods are available`;
    return undefined;
}
