import type { StackValidationPolicy } from "@pulumi/policy";
import { at, isList } from "../lib/known";
import { RELEASES } from "../lib/release";
import { releasesNamed, stackView } from "../lib/stack";

export interface KaiConfig {
    /**
     * Clusters (the nvca-operator's `clusterName`) whose KAI scheduler is installed outside this
     * stack, i.e. planes with `kaiSchedulerInstalled: true`: the pack cannot see it otherwise.
     */
    readonly externalKaiSchedulerClusters?: readonly string[];
    /** The same for the Dynamo operator (planes with `dynamoOperatorInstalled: true`). */
    readonly externalDynamoOperatorClusters?: readonly string[];
}

/** Each NVCA gate that names an add-on: NVCA stays unhealthy when the add-on does not run on its cluster. */
const GATES = [
    { gate: "KAIScheduler", release: RELEASES.kaiScheduler, external: "externalKaiSchedulerClusters" },
    { gate: "DynamoOperatorSupport", release: RELEASES.dynamoOperator, external: "externalDynamoOperatorClusters" },
] as const;

export const kaiFeatureGateNeedsKaiScheduler: StackValidationPolicy = {
    name: "kai-feature-gate-needs-kai-scheduler",
    description:
        "The `KAIScheduler` and `DynamoOperatorSupport` feature gates of nvca-operator (`selfManaged.featureGateValues`) " +
        "are on only where their add-on is installed: a kai-scheduler (dynamo-operator) release on the same cluster, or " +
        "a cluster listed in this policy's `externalKaiSchedulerClusters` (`externalDynamoOperatorClusters`) config " +
        "(otherwise NVCA stays unhealthy).",
    enforcementLevel: "mandatory",
    configSchema: {
        properties: {
            externalKaiSchedulerClusters: { type: "array", items: { type: "string" } },
            externalDynamoOperatorClusters: { type: "array", items: { type: "string" } },
        },
    },
    remediationSteps:
        "Install the add-on on that cluster (and, when it is installed outside this stack, list the cluster in the " +
        "policy config `externalKaiSchedulerClusters` or `externalDynamoOperatorClusters`), or remove the gate.",
    validateStack: (args, reportViolation) => {
        const config = args.getConfig<KaiConfig>();
        const view = stackView(args);
        for (const { gate, release, external } of GATES) {
            const outside = new Set(config[external] ?? []);
            const installed = releasesNamed(view, release);
            for (const operator of releasesNamed(view, RELEASES.nvcaOperator)) {
                const values = operator.release?.values;
                const gates = at(values, "selfManaged", "featureGateValues");
                if (!isList(gates) || !gates.includes(gate)) continue;
                const clusterName = at(values, "clusterName");
                if (typeof clusterName === "string" && outside.has(clusterName)) continue;
                if (installed.some((k) => k.cluster !== undefined && k.cluster === operator.cluster)) continue;
                const which = typeof clusterName === "string" ? `cluster ${clusterName}` : "its cluster";
                reportViolation(
                    `nvca-operator enables ${gate}, but ${which} has no ${release} release and is not listed in ${external}.`,
                    operator.urn,
                );
            }
        }
    },
};
