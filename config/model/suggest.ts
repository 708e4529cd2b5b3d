import { z } from "zod";
import { editDistance } from "../../lib/text/edit-distance";

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
        const d = editDistance(given.toLowerCase(), key.toLowerCase());
        if (d < bestDistance) [best, bestDistance] = [key, d];
    }
    // A third of the word, at least one edit: `domian` -> `domain`, but not `foo` -> `nats`.
    return best !== undefined && bestDistance <= Math.max(1, Math.floor(best.length / 3)) ? best : undefined;
}
