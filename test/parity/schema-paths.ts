import { z } from "zod";
import { unwrap } from "../../config/model/suggest";

/**
 * True when the schema accepts a value at `path` (a key of a strict object, anything under a
 * record or a loose object). "*" accepts any key. Used to check that every key the bundle reads
 * is one of the environment's keys.
 */
export function schemaAccepts(schema: z.ZodType, path: readonly string[]): boolean {
    const node = unwrap(schema);
    if (path.length === 0 || !node) return true;
    const def = node._zod.def as unknown as Record<string, unknown>;
    const [head, ...rest] = path;
    switch (def.type) {
        case "object": {
            const shape = (node as z.ZodObject).shape as Record<string, z.ZodType>;
            if (head in shape) return schemaAccepts(shape[head], rest);
            if (head === "*") return Object.values(shape).some((s) => schemaAccepts(s, rest));
            // A loose object takes any other key.
            return (def.catchall as z.ZodType | undefined)?._zod.def.type === "unknown";
        }
        case "record":
            return schemaAccepts(def.valueType as z.ZodType, rest);
        case "array":
            return /^(\*|[0-9]+)$/.test(head) && schemaAccepts(def.element as z.ZodType, rest);
        case "union":
            return (def.options as z.ZodType[]).some((o) => schemaAccepts(o, path));
        case "unknown":
        case "any":
            return true;
        default:
            return false;
    }
}
