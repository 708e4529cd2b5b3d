import { fleetKey } from "./project";
import type { FleetRule } from "./rule";

/**
 * Environments that share a namespace (as prerequisites need) agree on whether the fleet creates
 * it: the fleet declares it once, and a `pulumi destroy` of the fleet deletes what it created,
 * so one environment saying "it exists already" while another creates it would delete a namespace
 * someone else owns. The operator's namespace counts as well.
 */
export const namespaceCreatedOnce: FleetRule = (fleet) => {
    const first = new Map<string, { who: string; create: boolean }>([
        [fleet.operator.namespace, { who: "operator", create: fleet.operator.createNamespace }],
    ]);
    return Object.entries(fleet.environments).flatMap(([name, env]) => {
        const seen = first.get(env.namespace);
        if (seen === undefined) {
            first.set(env.namespace, { who: `environments.${name}`, create: env.createNamespace });
            return [];
        }
        if (seen.create === env.createNamespace) return [];
        return [
            {
                key: fleetKey("environments", [name, "createNamespace"]),
                message: `disagrees with ${seen.who}, which shares namespace ${env.namespace} and sets createNamespace ${seen.create}`,
                given: env.createNamespace,
                allowed: String(seen.create),
            },
        ];
    });
};
