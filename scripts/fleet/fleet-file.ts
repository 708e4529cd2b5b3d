import * as path from "node:path";
import { stackConfig } from "../lib/stack-config";
import { parseFleet } from "../../fleet/settings/parse";
import { FLEET_PROJECT } from "../../fleet/settings/project";
import { FLEET_KEYS, type FleetConfig, type FleetKey } from "../../fleet/settings/schema";

/**
 * The fleet file `<dir>/Pulumi.<stack>.yaml`, validated by the fleet program's own parser
 * (fleet/settings/parse.ts, which fleet/settings/load.ts feeds from pulumi.Config): the same
 * keys, defaults and rules. Secrets are never decrypted (the fleet file holds only references).
 */
export function readFleetFile(dir: string, stack: string): FleetConfig {
    const { config } = stackConfig(stack, path.resolve(dir));
    const prefix = `${FLEET_PROJECT}:`;
    const values: Partial<Record<FleetKey, unknown>> = {};
    const known = new Set<string>(FLEET_KEYS);
    const unknownKeys: string[] = [];
    for (const [key, value] of Object.entries(config)) {
        if (!key.startsWith(prefix)) continue;
        const name = key.slice(prefix.length);
        if (known.has(name)) values[name as FleetKey] = value;
        else unknownKeys.push(name);
    }
    return parseFleet({ values, unknownKeys: unknownKeys.sort() });
}

/** Where each environment's Stack is: its name (the environment's), namespace, stack and backend. */
export interface FleetEnvironment {
    readonly name: string;
    readonly namespace: string;
    readonly stack: string;
    readonly backend: string | undefined;
}

export function fleetEnvironments(fleet: FleetConfig): FleetEnvironment[] {
    return Object.entries(fleet.environments).map(([name, env]) => ({
        name,
        namespace: env.namespace,
        stack: env.stack,
        backend: env.backend,
    }));
}
