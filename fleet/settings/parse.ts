import { ConfigError, type ConfigProblem, unknownKeyMessage } from "../../config/model/errors";
import { environmentNameProblems } from "./environment-names";
import { fleetProblems } from "./problems";
import { FLEET_PROJECT } from "./project";
import { fleetRuleProblems } from "./rules";
import { FLEET_KEYS, type FleetConfig, type FleetKey, fleetSchema } from "./schema";

/** What the fleet program read from its stack config, before parsing. */
export interface RawFleetConfig {
    /** Each key's value (without the project prefix); undefined when unset. */
    readonly values: Partial<Record<FleetKey, unknown>>;
    /** Project keys this program does not know. */
    readonly unknownKeys: readonly string[];
}

/**
 * The fleet file parsed, or one ConfigError naming every bad key, before any resource is
 * declared. Pure: it reads nothing but its argument. The rules across environments run once
 * every key has parsed; the environments' names are checked in any case.
 */
export function parseFleet(raw: RawFleetConfig): FleetConfig {
    const allowedKeys = FLEET_KEYS.map((k) => `${FLEET_PROJECT}:${k}`).join(", ");
    const problems: ConfigProblem[] = raw.unknownKeys.map((key) => ({
        key: `${FLEET_PROJECT}:${key}`,
        message: unknownKeyMessage("unknown setting", key, FLEET_KEYS),
        allowed: allowedKeys,
    }));
    const parsed = fleetSchema.safeParse(raw.values, { reportInput: true });
    if (!parsed.success) {
        for (const key of FLEET_KEYS) {
            const issues = parsed.error.issues.filter((i) => i.path[0] === key).map((i) => ({ ...i, path: i.path.slice(1) }));
            problems.push(...fleetProblems(key, issues, raw.values[key], fleetSchema.shape[key]));
        }
    }
    const environments = raw.values.environments;
    if (environments !== null && typeof environments === "object" && !Array.isArray(environments)) {
        problems.push(...environmentNameProblems(Object.keys(environments)));
    }
    if (parsed.success) problems.push(...fleetRuleProblems(parsed.data));
    if (problems.length > 0) throw new ConfigError(problems);
    return parsed.data as FleetConfig;
}
