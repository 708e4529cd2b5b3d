import type { z } from "zod";

/**
 * Free-form blocks (chart values passed through as the bundle does) still hold Kubernetes fields
 * that take only strings. YAML makes `tag: 1.10` the number 1.1 and `prometheus.io/scrape: true`
 * a boolean: Helm renders them, and the API server refuses the object at install time, or the
 * wrong image is pulled. These are caught when the stack file is read instead.
 */
const STRING_MAPS = new Set(["annotations", "labels", "nodeSelector", "podAnnotations", "podLabels", "matchLabels"]);
const STRING_FIELDS = new Set(["tag"]);

const QUOTE = "(quote numbers and booleans; with `pulumi config set --path`, add `--type string`)";

type Path = (string | number)[];

function isMap(v: unknown): v is Record<string, unknown> {
    return v !== null && typeof v === "object" && !Array.isArray(v);
}

/** Each place under `value` where a string-only field holds something else. */
export function nonStringFields(value: unknown, path: Path = []): { path: Path; input: unknown; message: string }[] {
    const found: { path: Path; input: unknown; message: string }[] = [];
    if (Array.isArray(value)) {
        value.forEach((item, i) => found.push(...nonStringFields(item, [...path, i])));
        return found;
    }
    if (!isMap(value)) return found;
    for (const [key, v] of Object.entries(value)) {
        const at = [...path, key];
        if (STRING_MAPS.has(key) && isMap(v)) {
            for (const [k, entry] of Object.entries(v)) {
                if (typeof entry !== "string")
                    found.push({ path: [...at, k], input: entry, message: `${key} values must be strings ${QUOTE}` });
            }
            continue;
        }
        if (STRING_FIELDS.has(key) && v !== null && v !== undefined && typeof v !== "string") {
            found.push({ path: at, input: v, message: `an image ${key} must be a string ${QUOTE}` });
            continue;
        }
        if (key === "env" && Array.isArray(v)) {
            v.forEach((item, i) => {
                // Only its type is shown: an environment variable may hold a credential.
                if (isMap(item) && "value" in item && typeof item.value !== "string")
                    found.push({
                        path: [...at, i, "value"],
                        input: `a ${item.value === null ? "null" : typeof item.value}`,
                        message: `an environment variable's value must be a string ${QUOTE}`,
                    });
            });
        }
        found.push(...nonStringFields(v, at));
    }
    return found;
}

/** The refinement for a free-form block: an issue per non-string field, at its path. */
export function stringFieldsOnly(value: Record<string, unknown>, ctx: z.RefinementCtx): void {
    for (const f of nonStringFields(value)) {
        ctx.addIssue({
            code: "custom",
            path: f.path,
            input: f.input,
            message: f.message,
            params: { allowed: 'a string, such as "1.10" or "true"' },
        });
    }
}
