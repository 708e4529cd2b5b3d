import * as pulumi from "@pulumi/pulumi";
import { parseFleet, type RawFleetConfig } from "./parse";
import { FLEET_PROJECT } from "./project";
import { FLEET_KEYS, type FleetConfig } from "./schema";

/**
 * The one reader of the fleet's pulumi.Config: each known key as the engine hands it over, and
 * the project's keys this program does not know, for "did you mean".
 */
function readFleetConfig(): RawFleetConfig {
    const prefix = `${FLEET_PROJECT}:`;
    const values: RawFleetConfig["values"] = {};
    for (const key of FLEET_KEYS) {
        const text = pulumi.runtime.getConfig(prefix + key);
        if (text === undefined) continue;
        // A value that is not JSON is a string; the schema then says it wants an object.
        values[key] = parseJsonOr(text);
    }
    const known = new Set<string>(FLEET_KEYS);
    const unknownKeys = Object.keys(pulumi.runtime.allConfig())
        .filter((k) => k.startsWith(prefix) && !known.has(k.slice(prefix.length)))
        .map((k) => k.slice(prefix.length))
        .sort();
    return { values, unknownKeys };
}

function parseJsonOr(text: string): unknown {
    try {
        return JSON.parse(text) as unknown;
    } catch {
        return text;
    }
}

/** The fleet file, read and validated: what the fleet program calls before declaring anything. */
export function loadFleet(): FleetConfig {
    return parseFleet(readFleetConfig());
}
