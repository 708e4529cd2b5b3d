import type { ResourceValidationPolicy } from "@pulumi/policy";
import { at, UNKNOWN } from "../lib/known";
import { containers, describe, workloadFromArgs, type Workload } from "../lib/workloads";

/** The only workload allowed to enter the host: it raises the nodes' inotify limits. */
export const INOTIFY_TUNER = { kind: "DaemonSet", name: "node-inotify-tuner", namespace: "kube-system" } as const;

function isInotifyTuner(workload: Workload): boolean | typeof UNKNOWN {
    const name = at(workload.props, "metadata", "name");
    const namespace = at(workload.props, "metadata", "namespace");
    if (name === UNKNOWN || namespace === UNKNOWN) return UNKNOWN;
    return workload.kind === INOTIFY_TUNER.kind && name === INOTIFY_TUNER.name && namespace === INOTIFY_TUNER.namespace;
}

export const privilegedOnlyInotifyTuner: ResourceValidationPolicy = {
    name: "privileged-only-inotify-tuner",
    description:
        "Privileged containers and `hostPID` appear only in the `node-inotify-tuner` DaemonSet in `kube-system` " +
        '(NVIDIA/nvcf docs/user/cluster-management/self-managed.md, "Node inotify limits": it needs them to set the nodes\' sysctls; nothing else NVCF ' +
        "deploys from this stack may).",
    enforcementLevel: "mandatory",
    remediationSteps:
        "Drop `hostPID` and `securityContext.privileged` from the workload; node tuning belongs in the " + "node-inotify-tuner DaemonSet.",
    validateResource: (args, reportViolation) => {
        const workload = workloadFromArgs(args);
        if (!workload) return;
        const hostPID = at(workload.podSpec, "hostPID") === true;
        const privileged = containers(workload.podSpec).filter((c) => at(c, "securityContext", "privileged") === true);
        if (!hostPID && privileged.length === 0) return;
        // A name known only after deployment is checked again during `pulumi up`.
        if (isInotifyTuner(workload) !== false) return;
        if (hostPID) reportViolation(`${describe(workload)} sets hostPID.`);
        for (const container of privileged) {
            const name = typeof container.name === "string" ? container.name : "(unnamed)";
            reportViolation(`${describe(workload)}: container ${name} is privileged.`);
        }
    },
};
