import type { ConfigProblem } from "../model/errors";
import { dynamoOperatorPresent, kaiSchedulerPresent } from "../model/derived-facts";
import type { ComputePlaneRule } from "./rule";

/** NVCA's feature gates name only an add-on that runs on the cluster (NVCA stays unhealthy otherwise). */
export const featureGatesNeedAddons: ComputePlaneRule = (plane, key) => {
    const problems: ConfigProblem[] = [];
    const gates = [
        [
            "KAIScheduler",
            kaiSchedulerPresent(plane),
            "the KAI scheduler",
            "addons.kaiScheduler.enabled: true, or kaiSchedulerInstalled: true once the KAI scheduler runs there",
        ],
        [
            "DynamoOperatorSupport",
            dynamoOperatorPresent(plane),
            "the Dynamo operator",
            "addons.dynamoOperator.enabled: true, or dynamoOperatorInstalled: true once the Dynamo operator runs there",
        ],
    ] as const;
    for (const [gate, present, what, allowed] of gates) {
        if (plane.featureGates.includes(gate) && !present) {
            problems.push({
                key: key("featureGates"),
                message: `the ${gate} gate keeps NVCA unhealthy on a cluster without ${what}`,
                given: gate,
                allowed,
            });
        }
    }
    return problems;
};
