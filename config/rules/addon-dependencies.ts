import type { ConfigProblem } from "../model/errors";
import { groveOperatorPresent, kaiSchedulerPresent } from "../model/derived-facts";
import type { ComputePlaneRule } from "./rule";

/**
 * The compute-plane bundle's add-on DAG: Grove needs KAI, Dynamo needs Grove, the topology needs
 * KAI (the bundle's render `fail`). An add-on declared installed outside the stack counts as present.
 */
export const addonDependencies: ComputePlaneRule = (plane, key) => {
    const problems: ConfigProblem[] = [];
    const { addons } = plane;
    const needs = [
        [
            addons.topologyAwareScheduling.enabled,
            "topologyAwareScheduling",
            kaiSchedulerPresent(plane),
            "the KAI scheduler",
            "addons.kaiScheduler.enabled: true or kaiSchedulerInstalled: true",
        ],
        [
            addons.groveOperator.enabled,
            "groveOperator",
            kaiSchedulerPresent(plane),
            "the KAI scheduler",
            "addons.kaiScheduler.enabled: true or kaiSchedulerInstalled: true",
        ],
        [
            addons.dynamoOperator.enabled,
            "dynamoOperator",
            groveOperatorPresent(plane),
            "the Grove operator",
            "addons.groveOperator.enabled: true or groveOperatorInstalled: true",
        ],
    ] as const;
    for (const [on, addon, present, what, allowed] of needs) {
        if (on && !present) {
            problems.push({
                key: key(`addons.${addon}.enabled`),
                message: `needs ${what} on the same cluster`,
                given: true,
                allowed: `false, or ${allowed}`,
            });
        }
    }
    return problems;
};
