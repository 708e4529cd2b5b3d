import type { FieldPath, Segment } from "./path";

/** A field whose live value is not what applying the release's recorded object gives. */
export interface FieldDifference {
    readonly path: FieldPath;
    /** What the recorded object, applied to the live one, makes of the field (undefined: absent). */
    readonly recorded: unknown;
    readonly live: unknown;
}

/** What the API server keeps about an object rather than in it: never drift. */
const BOOKKEEPING: readonly string[] = [
    "metadata.managedFields",
    "metadata.resourceVersion",
    "metadata.generation",
    "metadata.uid",
    "metadata.creationTimestamp",
    "status",
];

type Json = Record<string, unknown>;
/** A JSON object (not an array, not null). */
export const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
const named = (v: unknown): v is Json & { name: string } => isObject(v) && typeof v.name === "string";

function equal(a: unknown, b: unknown): boolean {
    if (a === b) return true;
    if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => equal(x, b[i]));
    if (isObject(a) && isObject(b)) {
        const keys = Object.keys(a);
        return keys.length === Object.keys(b).length && keys.every((k) => k in b && equal(a[k], b[k]));
    }
    return false;
}

/**
 * The fields where `live` differs from `applied`: the live object as a server-side dry-run of the
 * recorded object made it (the API server's defaults filled in, other managers' additions kept),
 * so what differs is exactly what the release set and someone changed since. Pure.
 */
export function differences(applied: unknown, live: unknown): FieldDifference[] {
    const out: FieldDifference[] = [];
    walk(applied, live, [], out);
    return out;
}

function walk(a: unknown, b: unknown, path: Segment[], out: FieldDifference[]): void {
    if (isObject(a) && isObject(b)) {
        for (const key of new Set([...Object.keys(b), ...Object.keys(a)])) {
            const next = [...path, { key }];
            if (path.length <= 1 && BOOKKEEPING.includes(next.map((s) => s.key).join("."))) continue;
            walk(a[key], b[key], next, out);
        }
        return;
    }
    if (Array.isArray(a) && Array.isArray(b)) {
        // Lists of named items (containers, env, ports, volumes) pair by name, as their merge key does; others by position.
        if ([...a, ...b].every(named)) {
            const names = [...new Set([...b.map((i) => i.name), ...a.map((i) => i.name)])];
            for (const name of names) {
                const ia = a.findIndex((i) => i.name === name);
                const ib = b.findIndex((i) => i.name === name);
                walk(a[ia], b[ib], [...path, { key: name, index: ib }], out);
            }
            return;
        }
        if (a.length === b.length) {
            a.forEach((item, i) => walk(item, b[i], [...path, { key: String(i), index: i }], out));
            return;
        }
    }
    if (!equal(a, b)) out.push({ path, recorded: a, live: b });
}
