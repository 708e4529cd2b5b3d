/** A map of plain data (no class instances: a Pulumi Output is a leaf, never merged into). */
export type Plain = Record<string, unknown>;

export function isPlainObject(value: unknown): value is Plain {
    return typeof value === "object" && value !== null && !Array.isArray(value) && Object.getPrototypeOf(value) === Object.prototype;
}

/**
 * `over` merged into `base`, the way both Helmfile merges an environment file over `base.yaml`
 * and Helm merges a values layer over another: maps merge key by key, at every level; a list, a
 * scalar or a null from `over` replaces what `base` had (a null then means "unset", which Helm
 * turns into dropping a chart default). Neither argument is changed.
 */
export function deepMerge(base: Plain, over: Plain | undefined): Plain {
    if (!over) return base;
    const result: Plain = { ...base };
    for (const [key, value] of Object.entries(over)) {
        const current = result[key];
        result[key] = isPlainObject(value) && isPlainObject(current) ? deepMerge(current, value) : value;
    }
    return result;
}
