import type { StackValidationPolicy } from "@pulumi/policy";
import { at, isList } from "../lib/known";
import { RELEASES } from "../lib/release";
import { releasesNamed, stackView } from "../lib/stack";

const GATE = "KAIScheduler";

export interface KaiConfig {
    /**
     * Clusters (the nvca-operator's `clusterName`) whose KAI scheduler is installed outside this
     * stack, i.e. planes with `kaiSchedulerInstalled: true`: the pack cannot see it otherwise.
     */
    readonly externalKaiSchedulerClusters?: readonly string[];
}

export const kaiFeatureGateNeedsKaiScheduler: StackValidationPolicy = {
    name: "kai-feature-gate-needs-kai-scheduler",
    description:
        "The `KAIScheduler` feature gate of nvca-operator (`selfManaged.featureGateValues`) is on only where " +
        "the KAI scheduler is installed: a kai-scheduler release on the same cluster, or a cluster listed in " +
        "this policy's `externalKaiSchedulerClusters` config (otherwise NVCA stays unhealthy).",
    enforcementLevel: "mandatory",
    configSchema: {
        properties: { externalKaiSchedulerClusters: { type: "array", items: { type: "string" } } },
    },
    remediationSteps:
        "Install the KAI scheduler on that cluster (and, when it is installed outside this stack, list the cluster " +
        "in the policy config `externalKaiSchedulerClusters`), or remove KAIScheduler from the feature gates.",
    validateStack: (args, reportViolation) => {
        const external = new Set(args.getConfig<KaiConfig>().externalKaiSchedulerClusters ?? []);
        const view = stackView(args);
        const kai = releasesNamed(view, RELEASES.kaiScheduler);
        for (const operator of releasesNamed(view, RELEASES.nvcaOperator)) {
            const values = operator.release?.values;
            const gates = at(values, "selfManaged", "featureGateValues");
            if (!isList(gates) || !gates.includes(GATE)) continue;
            const clusterName = at(values, "clusterName");
            if (typeof clusterName === "string" && external.has(clusterName)) continue;
            if (kai.some((k) => k.cluster !== undefined && k.cluster === operator.cluster)) continue;
            const which = typeof clusterName === "string" ? `cluster ${clusterName}` : "its cluster";
            reportViolation(
                `nvca-operator enables ${GATE}, but ${which} has no ${RELEASES.kaiScheduler} release and is not listed in externalKaiSchedulerClusters.`,
                operator.urn,
            );
        }
    },
};
