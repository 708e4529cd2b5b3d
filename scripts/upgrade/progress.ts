/**
 * The upgrade's progress, kept in the cluster it upgrades (ConfigMap nvcf/nvcf-upgrade-progress),
 * so a rerun from any shell or machine resumes at the stage that failed and never repeats one
 * that passed. The OpenBao baselines are kept with it: captured once, before the first change.
 */
import { excerpt } from "../../lib/http/client";
import type { Kube } from "../../lib/kubernetes/client";
import { STAGES, type StageId } from "./stages";

export const PROGRESS = { name: "nvcf-upgrade-progress", namespace: "nvcf" } as const;

export interface StageRecord {
    /** running: started and not ended (an interrupted run); a rerun checks it again even when nothing is left to change. */
    readonly state: "running" | "passed" | "failed";
    /** ISO 8601. */
    readonly at: string;
    /** Why it failed, one line per failing check. */
    readonly detail?: string;
}

export interface Progress {
    readonly from: string;
    readonly to: string;
    readonly startedAt: string;
    readonly stages: Readonly<Partial<Record<StageId, StageRecord>>>;
    /** What the OpenBao stage captured before its first change (cluster ID, JWT mounts). */
    readonly openbaoBaseline?: unknown;
    readonly completedAt?: string;
}

export interface ProgressStore {
    read(): Promise<Progress | undefined>;
    write(progress: Progress): Promise<void>;
}

export function withStage(progress: Progress, stage: StageId, record: StageRecord): Progress {
    return { ...progress, stages: { ...progress.stages, [stage]: record } };
}

/** The first stage that has not passed, or undefined when every one has. */
export function resumeAt(progress: Progress | undefined): StageId | undefined {
    return STAGES.find((s) => progress?.stages[s.id]?.state !== "passed")?.id;
}

/** The record in a ConfigMap, read and written through the API server. */
export function kubeProgressStore(kube: Kube): ProgressStore {
    const path = `/api/v1/namespaces/${PROGRESS.namespace}/configmaps`;
    const where = `ConfigMap ${PROGRESS.namespace}/${PROGRESS.name}`;
    return {
        async read() {
            const res = await kube.request("GET", `${path}/${PROGRESS.name}`);
            if (res.status === 404) return undefined;
            if (res.status !== 200) throw new Error(`reading ${where} answered HTTP ${res.status}: ${excerpt(res.text, 200)}`);
            const text: unknown = res.body?.data?.progress;
            try {
                return typeof text === "string" ? (JSON.parse(text) as Progress) : undefined;
            } catch {
                throw new Error(
                    `${where} does not hold this program's record; delete it (kubectl -n ${PROGRESS.namespace} delete configmap ${PROGRESS.name}) to start over`,
                );
            }
        },
        async write(progress) {
            const body = {
                apiVersion: "v1",
                kind: "ConfigMap",
                metadata: {
                    name: PROGRESS.name,
                    namespace: PROGRESS.namespace,
                    labels: { "app.kubernetes.io/managed-by": "nvcf-self-managed-upgrade" },
                },
                data: { progress: JSON.stringify(progress, null, 2) },
            };
            let res = await kube.request("PUT", `${path}/${PROGRESS.name}`, body);
            if (res.status === 404) res = await kube.request("POST", path, body);
            if (res.status !== 200 && res.status !== 201) {
                throw new Error(`writing ${where} answered HTTP ${res.status}: ${excerpt(res.text, 200)}`);
            }
        },
    };
}
