import { isDeepStrictEqual } from "node:util";
import { compareStrings, isPlainObject } from "../lib/rendered";

export type PathPart = string | number;

/** One leaf that differs between two JSON values; `before`/`after` are absent when the key was. */
export interface ValueChange {
    readonly path: readonly PathPart[];
    readonly kind: "added" | "removed" | "changed";
    readonly before?: unknown;
    readonly after?: unknown;
}

/**
 * The differences between two JSON values, as deep as both sides have the same shape: maps key
 * by key, lists element by element when their length is unchanged. A list that grew or shrank
 * is one change, since Helm replaces lists whole and an index-by-index diff would misalign.
 */
export function diffValues(before: unknown, after: unknown, at: readonly PathPart[] = []): ValueChange[] {
    if (isDeepStrictEqual(before, after)) return [];
    if (isPlainObject(before) && isPlainObject(after)) {
        const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort(compareStrings);
        return keys.flatMap((key) => {
            const path = [...at, key];
            if (!(key in after)) return leaves(before[key], path).map(([p, v]) => ({ path: p, kind: "removed" as const, before: v }));
            if (!(key in before)) return leaves(after[key], path).map(([p, v]) => ({ path: p, kind: "added" as const, after: v }));
            return diffValues(before[key], after[key], path);
        });
    }
    if (Array.isArray(before) && Array.isArray(after) && before.length === after.length) {
        return before.flatMap((item, i) => diffValues(item, after[i], [...at, i]));
    }
    return [{ path: at, kind: "changed", before, after }];
}

/**
 * The leaves of a map that appeared or went away, so that each key shows on its own line like
 * any other change. Lists and empty maps stay whole.
 */
function leaves(value: unknown, at: readonly PathPart[]): [readonly PathPart[], unknown][] {
    if (!isPlainObject(value) || Object.keys(value).length === 0) return [[at, value]];
    return Object.keys(value)
        .sort(compareStrings)
        .flatMap((key) => leaves(value[key], [...at, key]));
}

/** `a.b[0]["example.com/key"]`: dots for plain keys, brackets for indices and other keys. */
export function formatPath(path: readonly PathPart[]): string {
    return path.reduce<string>((text, part) => {
        if (typeof part === "number") return `${text}[${part}]`;
        if (/^[A-Za-z0-9_-]+$/.test(part)) return text === "" ? part : `${text}.${part}`;
        return `${text}[${JSON.stringify(part)}]`;
    }, "");
}

/** True when one path lies within the other (a whole map that changed covers its keys). */
export function overlaps(a: readonly PathPart[], b: readonly PathPart[]): boolean {
    const n = Math.min(a.length, b.length);
    for (let i = 0; i < n; i++) if (a[i] !== b[i]) return false;
    return true;
}
