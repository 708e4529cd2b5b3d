import { z } from "zod";

/** The keys a schema accepts at `path` (objects inside defaults, optionals, pipes, arrays and records). */
export function keysAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
    let current: z.ZodType | undefined = unwrap(schema);
    for (const part of path) {
        if (!current) return [];
        const def = current._zod.def as unknown as Record<string, unknown>;
        if (current instanceof z.ZodObject) current = unwrap(current.shape[String(part)] as z.ZodType | undefined);
        else if (def.type === "array") current = unwrap(def.element as z.ZodType);
        else if (def.type === "record") current = unwrap(def.valueType as z.ZodType);
        else return [];
    }
    return current instanceof z.ZodObject ? Object.keys(current.shape) : [];
}

/** The schema inside the wrappers that do not change its shape. */
export function unwrap(schema: z.ZodType | undefined): z.ZodType | undefined {
    let current = schema;
    for (let i = 0; current && i < 10; i++) {
        const def = current._zod.def as unknown as Record<string, unknown>;
        if (def.innerType) current = def.innerType as z.ZodType;
        // A preprocess is a pipe from a transform into the schema that checks the result.
        else if (def.type === "pipe") current = ((def.in as z.ZodType)._zod.def.type === "transform" ? def.out : def.in) as z.ZodType;
        else break;
    }
    return current;
}

/** The known key closest to a mistyped one, when it is close enough to be the likely intent. */
export function closestKey(given: string, known: readonly string[]): string | undefined {
    let best: string | undefined;
    let bestDistance = Infinity;
    for (const key of known) {
        const d = distance(given.toLowerCase(), key.toLowerCase());
        if (d < bestDistance) [best, bestDistance] = [key, d];
    }
    // A third of the word, at least one edit: `domian` -> `domain`, but not `foo` -> `nats`.
    return best !== undefined && bestDistance <= Math.max(1, Math.floor(best.length / 3)) ? best : undefined;
}

/** Damerau-Levenshtein (optimal string alignment): a swap of two letters is one edit. */
function distance(a: string, b: string): number {
    const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
    for (let j = 1; j <= b.length; j++) d[0][j] = j;
    for (let i = 1; i <= a.length; i++) {
        for (let j = 1; j <= b.length; j++) {
            const cost = a[i - 1] === b[j - 1] ? 0 : 1;
            d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
            if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
        }
    }
    return d[a.length][b.length];
}
