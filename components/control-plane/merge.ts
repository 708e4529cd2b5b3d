import * as pulumi from "@pulumi/pulumi";

type Plain = Record<string, unknown>;

function isPlainObject(value: unknown): value is Plain {
    return (
        typeof value === "object" &&
        value !== null &&
        !Array.isArray(value) &&
        !pulumi.Output.isInstance(value) &&
        Object.getPrototypeOf(value) === Object.prototype
    );
}

/**
 * Helm's merge of a values layer over another: maps merge key by key, lists and scalars from
 * `over` replace, as Helm does. A null is kept: Helm then drops the chart's own default for that key.
 */
export function mergeValues(base: Plain, over: Plain | undefined): Plain {
    if (!over) return base;
    const result: Plain = { ...base };
    for (const [key, value] of Object.entries(over)) {
        if (isPlainObject(value) && isPlainObject(result[key])) result[key] = mergeValues(result[key] as Plain, value);
        else result[key] = value;
    }
    return result;
}
