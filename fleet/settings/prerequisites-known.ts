import { unknownKeyMessage } from "../../config/model/errors";
import { fleetKey } from "./project";
import type { FleetRule } from "./rule";

/**
 * Each prerequisite names another environment of the fleet, in the same namespace: the operator
 * looks a prerequisite up by name in the Stack's own namespace (stack_controller.go, the
 * prerequisite check), so one anywhere else is "not found" forever and the Stack never runs.
 */
export const prerequisitesKnown: FleetRule = (fleet) => {
    const names = Object.keys(fleet.environments);
    return Object.entries(fleet.environments).flatMap(([name, env]) =>
        env.prerequisites.flatMap((p, i) => {
            const key = fleetKey("environments", [name, "prerequisites", i, "environment"]);
            const other = fleet.environments[p.environment];
            if (other === undefined) {
                const known = names.filter((n) => n !== name);
                return [
                    {
                        key,
                        message: unknownKeyMessage("names no environment of this fleet", p.environment, known),
                        given: p.environment,
                        allowed: known.join(", ") || "another environment of this fleet",
                    },
                ];
            }
            if (other.namespace === env.namespace) return [];
            const here = names.filter((n) => n !== name && fleet.environments[n].namespace === env.namespace);
            return [
                {
                    key,
                    message: `names an environment in namespace ${other.namespace}, and the operator looks prerequisites up in the Stack's own namespace (${env.namespace})`,
                    given: p.environment,
                    allowed:
                        here.length > 0
                            ? `an environment in namespace ${env.namespace}: ${here.join(", ")}`
                            : `an environment in namespace ${env.namespace} (move one there)`,
                },
            ];
        }),
    );
};
