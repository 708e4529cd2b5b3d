import { excerpt } from "../http/client";
import type { Kube } from "../kubernetes/client";
import { CASSANDRA } from "./contract";
import { cassandraPodTemplate, parseRotationResult, ROTATION_JOB, rotationJob, rotationSecret, type RotationResult } from "./rotation-job";

export interface RotationRun {
    readonly roles: readonly string[];
    readonly superuser: { readonly user: string; readonly password: string };
    readonly password: string;
    readonly timeoutSeconds: number;
    readonly pollMs: number;
    readonly say: (line: string) => void;
}

/** The Job's least deadline: each role takes a few cqlsh runs of about a second, and Cassandra may make one wait 5 s. */
export const MIN_DEADLINE_SECONDS = 300;

const JOBS = `/apis/batch/v1/namespaces/${CASSANDRA.namespace}/jobs`;
const SECRETS = `/api/v1/namespaces/${CASSANDRA.namespace}/secrets`;
const WHERE = `job ${CASSANDRA.namespace}/${ROTATION_JOB}`;

/**
 * Runs the rotation Job to its end and returns what its pod reported. A Job left by a run that
 * was stopped goes first (its pod is stopped; what it did is kept, as every step looks before it
 * acts). The Job and its Secret are deleted at the end, whatever happened.
 */
export async function runRotationJob(kube: Kube, run: RotationRun): Promise<RotationResult> {
    const sts = await kube.request("GET", `/apis/apps/v1/namespaces/${CASSANDRA.namespace}/statefulsets/${CASSANDRA.statefulSet}`);
    if (sts.status === 404) {
        throw new Error(`statefulset ${CASSANDRA.namespace}/${CASSANDRA.statefulSet} does not exist; the cassandra release makes it`);
    }
    if (sts.status !== 200) throw new Error(`GET statefulset ${CASSANDRA.namespace}/${CASSANDRA.statefulSet}: ${answer(sts)}`);
    const template = cassandraPodTemplate(sts.body);
    if (typeof template === "string") throw new Error(`statefulset ${CASSANDRA.namespace}/${CASSANDRA.statefulSet}: ${template}`);

    await removeJob(kube, run.pollMs, run.timeoutSeconds);
    const deadline = Math.max(run.timeoutSeconds, MIN_DEADLINE_SECONDS);
    const created = await kube.request("POST", JOBS, rotationJob(template, run.roles, deadline));
    if (created.status !== 201) throw new Error(`creating ${WHERE}: ${answer(created)}`);
    try {
        const uid: string = created.body?.metadata?.uid;
        const secret = await kube.request("POST", SECRETS, rotationSecret(uid, { ...run.superuser, servicePassword: run.password }));
        if (secret.status !== 201) throw new Error(`creating secret ${CASSANDRA.namespace}/${ROTATION_JOB}: ${answer(secret)}`);
        run.say(`the Cassandra password rotation: ${WHERE} started on ${template.image}`);
        const ended = await untilEnded(kube, run.pollMs, deadline);
        const report = await terminationMessage(kube, uid);
        const result = parseRotationResult(report.message ?? "");
        if (ended.type === "Complete" && !result.failed) return result;
        const controller =
            ended.type === "timeout" ? `it did not end in ${deadline}s` : `the job controller says ${ended.reason}: ${ended.message}`;
        const why = result.failed ?? report.waiting ?? controller;
        return { ...result, failed: why };
    } finally {
        await removeJob(kube, run.pollMs, run.timeoutSeconds).catch((err: unknown) =>
            run.say(`the Cassandra password rotation: could not delete ${WHERE}: ${(err as Error).message}`),
        );
    }
}

/** Polls the Job until its Complete or Failed condition is True (with the controller's reason), or its deadline passes, with a minute's grace. */
async function untilEnded(
    kube: Kube,
    pollMs: number,
    deadlineSeconds: number,
): Promise<{ type: "Complete" | "Failed" | "timeout"; reason?: string; message?: string }> {
    const deadline = Date.now() + (deadlineSeconds + 60) * 1000;
    for (;;) {
        const job = await kube.request("GET", `${JOBS}/${ROTATION_JOB}`);
        if (job.status !== 200) throw new Error(`GET ${WHERE}: ${answer(job)}`);
        const conditions: { type?: string; status?: string; reason?: string; message?: string }[] = job.body?.status?.conditions ?? [];
        for (const type of ["Complete", "Failed"] as const) {
            const c = conditions.find((x) => x.type === type && x.status === "True");
            if (c) return { type, reason: c.reason, message: c.message };
        }
        if (Date.now() > deadline) return { type: "timeout" };
        await new Promise((r) => setTimeout(r, pollMs));
    }
}

/** The rotate container's termination message, or why it is waiting (an image that cannot be pulled, no node for it). */
async function terminationMessage(kube: Kube, uid: string): Promise<{ message?: string; waiting?: string }> {
    const selector = encodeURIComponent(`batch.kubernetes.io/controller-uid=${uid}`);
    const pods = await kube.request("GET", `/api/v1/namespaces/${CASSANDRA.namespace}/pods?labelSelector=${selector}`);
    if (pods.status !== 200) throw new Error(`listing the pods of ${WHERE}: ${answer(pods)}`);
    for (const pod of pods.body?.items ?? []) {
        const state = (pod.status?.containerStatuses ?? []).find((c: { name?: string }) => c.name === "rotate")?.state;
        if (typeof state?.terminated?.message === "string") return { message: state.terminated.message };
        if (state?.waiting?.reason) {
            return { waiting: `its pod ${pod.metadata?.name} is waiting: ${state.waiting.reason} ${state.waiting.message ?? ""}`.trim() };
        }
        // A pod no node takes (the StatefulSet's node selector and tolerations) has no container status, only this condition.
        const unscheduled = (pod.status?.conditions ?? []).find(
            (c: { type?: string; status?: string }) => c.type === "PodScheduled" && c.status === "False",
        );
        if (unscheduled)
            return {
                waiting: `its pod ${pod.metadata?.name} is not scheduled: ${unscheduled.reason ?? ""} ${unscheduled.message ?? ""}`.trim(),
            };
    }
    return {};
}

/** Deletes the Job (with its pod) and its Secret, and waits until the Job is gone. */
async function removeJob(kube: Kube, pollMs: number, timeoutSeconds: number): Promise<void> {
    const job = await kube.request("DELETE", `${JOBS}/${ROTATION_JOB}`, { propagationPolicy: "Background" });
    if (job.status !== 200 && job.status !== 202 && job.status !== 404) throw new Error(`DELETE ${WHERE}: ${answer(job)}`);
    const secret = await kube.request("DELETE", `${SECRETS}/${ROTATION_JOB}`);
    if (secret.status !== 200 && secret.status !== 404) {
        throw new Error(`DELETE secret ${CASSANDRA.namespace}/${ROTATION_JOB}: ${answer(secret)}`);
    }
    const deadline = Date.now() + timeoutSeconds * 1000;
    while ((await kube.request("GET", `${JOBS}/${ROTATION_JOB}`)).status !== 404) {
        if (Date.now() > deadline) throw new Error(`${WHERE} is still there ${timeoutSeconds}s after its deletion`);
        await new Promise((r) => setTimeout(r, pollMs));
    }
}

function answer(res: { status: number; text: string }): string {
    return `${res.status} ${excerpt(res.text)}`;
}
