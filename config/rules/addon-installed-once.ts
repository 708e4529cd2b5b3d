import type { ConfigProblem } from "../model/errors";
import type { ComputePlaneRule } from "./rule";

/**
 * An add-on declared installed outside the stack counts as present (addon-dependencies.ts,
 * feature-gates-need-addons.ts), but the stack must not install a second copy of it.
 */
export const addonInstalledOnce: ComputePlaneRule = (plane, key) => {
    const problems: ConfigProblem[] = [];
    const { addons } = plane;
    const outside = [
        ["kaiScheduler", "kaiSchedulerInstalled", plane.kaiSchedulerInstalled],
        ["groveOperator", "groveOperatorInstalled", plane.groveOperatorInstalled],
        ["dynamoOperator", "dynamoOperatorInstalled", plane.dynamoOperatorInstalled],
    ] as const;
    for (const [addon, installed, declared] of outside) {
        if (addons[addon].enabled && declared) {
            problems.push({
                key: key(`addons.${addon}.enabled`),
                message: `the stack would install a second copy of an add-on declared installed outside it (${installed}: true)`,
                given: true,
                allowed: `false while ${installed} is true, or ${installed}: false`,
            });
        }
    }
    return problems;
};
