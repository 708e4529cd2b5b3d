import type { Kube } from "../kubernetes/client";
import {
    deploymentPods,
    readDeployment,
    releaseDeployments,
    restartDeployment,
    rolloutPending,
    type WorkloadPod,
} from "../kubernetes/deployments";

/** A Helm release whose Deployments read a credential from OpenBao when their pods start. */
export interface CredentialReader {
    readonly namespace: string;
    readonly release: string;
}

export interface RestartOptions {
    /** What was written, in messages ("the sidecar image-pull credential"). */
    readonly what: string;
    readonly timeoutSeconds: number;
    readonly pollMs: number;
    readonly say: (line: string) => void;
}

/**
 * Restarts, in the readers' order, every Deployment of theirs with a pod that started before
 * `writtenAt` (the credential's version time, OpenBao's clock), and waits for each rollout before
 * the next. Returns the Deployments it restarted or saw through a restart. A reader with no
 * Deployment stops it: a restart is never skipped in silence.
 */
export async function restartReaders(
    kube: Kube,
    readers: readonly CredentialReader[],
    writtenAt: string,
    o: RestartOptions,
): Promise<string[]> {
    const restarted: string[] = [];
    for (const r of readers) {
        const deployments = await releaseDeployments(kube, r.namespace, r.release);
        if (deployments.length === 0) {
            throw new Error(
                `${o.what}: the credential is written, but release ${r.release} has no Deployment in ${r.namespace} to restart ` +
                    `(kubectl -n ${r.namespace} get deploy -l app.kubernetes.io/instance=${r.release}); run pulumi up again once it has`,
            );
        }
        for (const deployment of deployments) {
            if (await restartIfOlder(kube, r.namespace, deployment, writtenAt, o)) restarted.push(`${r.namespace}/${deployment}`);
        }
    }
    return restarted;
}

async function restartIfOlder(kube: Kube, namespace: string, deployment: string, writtenAt: string, o: RestartOptions): Promise<boolean> {
    const name = `deployment ${namespace}/${deployment}`;
    const d = await readDeployment(kube, namespace, deployment);
    // Gone since it was listed: no pod of it holds the old value.
    if (!d) return false;
    const older = podsOlderThan(await deploymentPods(kube, namespace, d), writtenAt);
    if (older.length === 0 && !rolloutPending(d)) return false;
    if (older.length > 0) {
        o.say(`${o.what}: restarting ${name}: ${older.join(", ")} started before the credential was written`);
        // Stamped with the version's own time: a rerun while this restart rolls out sets the same value, which starts nothing new.
        await restartDeployment(kube, namespace, deployment, writtenAt);
    }
    const deadline = Date.now() + o.timeoutSeconds * 1000;
    for (;;) {
        const now = await readDeployment(kube, namespace, deployment);
        const pending = now ? rolloutPending(now) : undefined;
        if (!pending) return older.length > 0;
        if (Date.now() > deadline) {
            throw new Error(
                `${o.what}: the credential is written, but ${name} has not rolled out after ${o.timeoutSeconds} s (${pending}); ` +
                    `see kubectl -n ${namespace} rollout status deploy/${deployment}, then run pulumi up again to finish`,
            );
        }
        await new Promise((res) => setTimeout(res, o.pollMs));
    }
}

/**
 * The pods that started before the credential's current version was written: they hold the old
 * one (nvcf-api reads its OpenBao secrets when it starts), so their Deployment is restarted. A
 * pod not yet started reads the new one; a terminating pod is on its way out. Stateless, so an
 * `up` that stopped after the write and before the restart still restarts on the next run.
 */
export function podsOlderThan(pods: readonly WorkloadPod[], writtenAt: string): string[] {
    // startTime has whole seconds, created_time nanoseconds: a pod that started in the write's second counts as older.
    const written = Math.floor(Date.parse(writtenAt) / 1000) * 1000;
    return pods.filter((p) => !p.terminating && p.startTime !== undefined && Date.parse(p.startTime) <= written).map((p) => p.name);
}
