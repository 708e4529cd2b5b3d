import { fleetKey } from "./project";
import type { FleetRule } from "./rule";

/**
 * Two environments running one stack on one backend would take turns undoing each other's
 * updates (and queue behind each other's lock): each stack of a backend belongs to one environment.
 */
export const oneEnvironmentPerStack: FleetRule = (fleet) => {
    const owner = new Map<string, string>();
    return Object.entries(fleet.environments).flatMap(([name, env]) => {
        const id = `${env.backend} ${env.stack}`;
        const first = owner.get(id);
        if (first === undefined) {
            owner.set(id, name);
            return [];
        }
        return [
            {
                key: fleetKey("environments", [name, "stack"]),
                message: `is the stack environment ${first} runs on the same backend; each stack belongs to one environment`,
                given: env.stack,
                allowed: `a stack other than ${env.stack} on this backend`,
            },
        ];
    });
};
