import type * as pulumi from "@pulumi/pulumi";
import { PROJECT } from "../../config/model/project";
import {
    describeFailures,
    failed,
    health,
    preflight,
    type CheckResult,
    type HealthSpec,
    type PreflightSpec,
} from "../../lib/health/checks";
import type { Kube } from "../../lib/kubernetes/client";
import type { ClusterReach } from "../../lib/cluster-access/reach";
import { defineProvider, type ProviderContext } from "./kit";
import { messageOf } from "../../lib/text/message-of";

export interface ClusterChecksInputs {
    readonly kind: "preflight" | "health";
    /** The cluster as messages name it ("control plane", "compute plane gpu-1"). */
    readonly cluster: string;
    readonly reach: ClusterReach;
    readonly preflight?: PreflightSpec;
    readonly health?: HealthSpec;
    /** Preflight: each request's deadline. Health: how long to wait for every check to pass. */
    readonly timeoutSeconds: number;
    /** Health: the pause between rounds. */
    readonly pollSeconds: number;
}

export interface ClusterChecksOutputs extends ClusterChecksInputs {
    readonly results: CheckResult[];
}

/**
 * Runs preflight or the health gate as a resource. Create runs the checks (the gate polls until
 * they pass or its timeout); diff runs them once more, so a rerun (and a preview) re-checks a
 * cluster that passed before: all passing is no change, a failure is an update, which fails `up`
 * with the fix. Delete does nothing: checks leave nothing behind.
 */
export const ClusterChecksProvider = defineProvider<ClusterChecksInputs, ClusterChecksOutputs>({
    describe: (inputs) => `${inputs.kind === "preflight" ? "preflight" : "health gate"} of the ${inputs.cluster}`,
    // A preview with values still unknown cannot check yet; up will.
    unknownIsChange: true,
    changes: async (_olds, news, ctx) => (await once(news, ctx)).some(failed),
    id: (inputs) => `${inputs.kind}-${inputs.reach.clusterName ?? inputs.reach.kubeconfigSource}`,
    create: async (inputs, ctx) => ({ ...inputs, results: await run(inputs, ctx) }),
});

async function once(inputs: ClusterChecksInputs, ctx: ProviderContext): Promise<CheckResult[]> {
    let kube: Kube;
    try {
        kube = await ctx.kube(inputs.reach, inputs.kind === "preflight" ? inputs.timeoutSeconds : 30);
    } catch (err) {
        return [
            {
                name: "kubeconfig",
                ok: false,
                detail: messageOf(err),
                fix: "set the cluster's kubeconfig secret or context (docs/settings.md, Compute planes)",
            },
        ];
    }
    return inputs.kind === "preflight" ? preflight(kube, inputs.preflight ?? {}) : health(kube, inputs.health ?? {});
}

async function run(inputs: ClusterChecksInputs, ctx: ProviderContext): Promise<CheckResult[]> {
    if (inputs.kind === "preflight") {
        const results = await once(inputs, ctx);
        if (results.some(failed)) {
            throw new Error(
                `preflight of the ${inputs.cluster} failed, so no release there was touched:\n${describeFailures(inputs.cluster, results)}\n` +
                    `(a check that cannot pass on a cluster you know is fine is skipped with ${PROJECT}:checks.preflight.<check>: false)`,
            );
        }
        return results;
    }
    const deadline = Date.now() + inputs.timeoutSeconds * 1000;
    for (;;) {
        const results = await once(inputs, ctx);
        if (!results.some(failed)) return results;
        if (Date.now() + inputs.pollSeconds * 1000 > deadline) {
            throw new Error(
                `the health gate of the ${inputs.cluster} still fails after ${inputs.timeoutSeconds} s:\n${describeFailures(inputs.cluster, results)}\n` +
                    `(the releases are installed; fix the cause and run pulumi up again, which checks again; npm run status -- --stack <stack> shows every check)`,
            );
        }
        await new Promise((r) => setTimeout(r, inputs.pollSeconds * 1000));
    }
}

export type ClusterChecksArgs = { [K in keyof ClusterChecksInputs]: pulumi.Input<ClusterChecksInputs[K]> };
