import { UnknownValueError } from "@pulumi/policy";
import { unknownValue } from "@pulumi/pulumi/runtime/rpc";

/** A value the engine does not know yet: during preview, anything computed from an output. */
export const UNKNOWN: unique symbol = Symbol("unknown during preview");
export type Unknown = typeof UNKNOWN;

export type Plain = null | boolean | number | string | Unknown | readonly Plain[] | PlainRecord;
export interface PlainRecord {
    readonly [key: string]: Plain;
}

function read(get: () => unknown): unknown {
    try {
        return get();
    } catch (e) {
        if (e instanceof UnknownValueError) return UNKNOWN;
        throw e;
    }
}

/**
 * A plain copy of resource properties, each value the engine does not know yet replaced by
 * UNKNOWN. During preview the engine wraps props in a proxy that throws on reading an unknown
 * value, and then reports the whole policy as "can't run during preview". Copying once lets each
 * rule skip only the checks whose value is missing and still run all the others; `pulumi up`
 * validates every resource again with known inputs before creating it.
 */
export function plain(value: unknown): Plain {
    if (value === UNKNOWN || value === unknownValue) return UNKNOWN;
    if (value === null || value === undefined) return null;
    if (typeof value === "boolean" || typeof value === "number" || typeof value === "string") return value;
    if (Array.isArray(value)) {
        const items: Plain[] = [];
        const length = read(() => value.length);
        if (typeof length !== "number") return UNKNOWN;
        for (let i = 0; i < length; i++) items.push(plain(read(() => value[i])));
        return items;
    }
    if (typeof value === "object") {
        const record: Record<string, Plain> = {};
        // Object.keys does not trigger the proxy's get trap; each read below does, one at a time.
        for (const key of Object.keys(value)) {
            const item = read(() => (value as Record<string, unknown>)[key]);
            if (item !== undefined) record[key] = plain(item);
        }
        return record;
    }
    return null; // functions and symbols never come from the engine
}

export function isRecord(value: Plain | undefined): value is PlainRecord {
    return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function isList(value: Plain | undefined): value is readonly Plain[] {
    return Array.isArray(value);
}

/**
 * The value at `path`, UNKNOWN when any step on the way is unknown, undefined when a step is
 * missing or not a container.
 */
export function at(value: Plain | undefined, ...path: readonly (string | number)[]): Plain | undefined {
    let current: Plain | undefined = value;
    for (const step of path) {
        if (current === UNKNOWN) return UNKNOWN;
        if (typeof step === "number" ? !isList(current) : !isRecord(current)) return undefined;
        current = (current as Record<string | number, Plain>)[step];
    }
    return current;
}

/** A record's entries, or none when it is missing or unknown. */
export function entries(value: Plain | undefined): [string, Plain][] {
    return isRecord(value) ? Object.entries(value) : [];
}
