import { getObject, type Kube } from "../kubernetes/client";
import { excerpt } from "../http/client";

/** The label the StatefulSet controller puts on each pod: the revision of the template it was made from. */
export const REVISION_LABEL = "controller-revision-hash";

/** OpenBao's StatefulSet, as far as the rollout reads it. */
export interface StatefulSetState {
    readonly namespace: string;
    readonly name: string;
    readonly replicas: number;
    readonly generation: number;
    readonly observedGeneration: number;
    /** `OnDelete` in the chart: the controller never replaces a pod by itself. */
    readonly updateStrategy: string;
    /** The revision of the current template; pods made from another one run an old template. */
    readonly updateRevision?: string;
    /** Lags under `OnDelete` (it may never move): reported, never trusted. */
    readonly currentRevision?: string;
    readonly updatedReplicas: number;
}

/** One member's pod. */
export interface MemberPod {
    readonly name: string;
    readonly ordinal: number;
    readonly uid: string;
    /** The template revision it was made from (its `controller-revision-hash` label). */
    readonly revision?: string;
    readonly ready: boolean;
    readonly terminating: boolean;
}

const num = (v: unknown): number => (typeof v === "number" ? v : 0);

export async function readStatefulSet(kube: Kube, namespace: string, name: string): Promise<StatefulSetState | undefined> {
    const sts = await getObject(kube, `/apis/apps/v1/namespaces/${namespace}/statefulsets/${name}`);
    if (!sts) return undefined;
    return {
        namespace,
        name,
        replicas: typeof sts.spec?.replicas === "number" ? sts.spec.replicas : 1,
        generation: num(sts.metadata?.generation),
        observedGeneration: num(sts.status?.observedGeneration),
        updateStrategy: typeof sts.spec?.updateStrategy?.type === "string" ? sts.spec.updateStrategy.type : "RollingUpdate",
        ...(typeof sts.status?.updateRevision === "string" ? { updateRevision: sts.status.updateRevision } : {}),
        ...(typeof sts.status?.currentRevision === "string" ? { currentRevision: sts.status.currentRevision } : {}),
        updatedReplicas: num(sts.status?.updatedReplicas),
    };
}

/** The pod of each ordinal, by name (`<statefulSet>-<ordinal>`); undefined where none exists. */
export async function readMemberPods(kube: Kube, sts: StatefulSetState): Promise<(MemberPod | undefined)[]> {
    const pods: (MemberPod | undefined)[] = [];
    for (let ordinal = 0; ordinal < sts.replicas; ordinal++) {
        const name = `${sts.name}-${ordinal}`;
        const pod = await getObject(kube, `/api/v1/namespaces/${sts.namespace}/pods/${name}`);
        if (!pod) {
            pods.push(undefined);
            continue;
        }
        const conditions: { type?: string; status?: string }[] = Array.isArray(pod.status?.conditions) ? pod.status.conditions : [];
        pods.push({
            name,
            ordinal,
            uid: String(pod.metadata?.uid ?? ""),
            ...(typeof pod.metadata?.labels?.[REVISION_LABEL] === "string" ? { revision: pod.metadata.labels[REVISION_LABEL] } : {}),
            ready: conditions.some((c) => c.type === "Ready" && c.status === "True"),
            terminating: Boolean(pod.metadata?.deletionTimestamp),
        });
    }
    return pods;
}

/** Pods made from another template than the current one. */
export function stalePods(sts: StatefulSetState, pods: readonly (MemberPod | undefined)[]): MemberPod[] {
    return pods.filter((p): p is MemberPod => p !== undefined && p.revision !== sts.updateRevision);
}

/**
 * Deletes one member's pod, only if it is still the one that was looked at (its UID as a
 * precondition): a rerun never deletes the replacement a previous run already waited for.
 * The StatefulSet controller recreates it from the current template.
 */
export async function deleteMemberPod(kube: Kube, namespace: string, pod: MemberPod): Promise<void> {
    const path = `/api/v1/namespaces/${namespace}/pods/${pod.name}`;
    const res = await kube.request("DELETE", path, { kind: "DeleteOptions", apiVersion: "v1", preconditions: { uid: pod.uid } });
    // 404: already gone; 409: the precondition failed, the pod is already another one.
    if (res.status === 200 || res.status === 202 || res.status === 404 || res.status === 409) return;
    throw new Error(`could not delete pod ${namespace}/${pod.name}: DELETE ${path} answered HTTP ${res.status}: ${excerpt(res.text, 200)}`);
}
