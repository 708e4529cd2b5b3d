/**
 * What the Pulumi CLI does with `Pulumi.yaml`'s `config` block before it runs a program, ported
 * from pulumi/pulumi (`sdk/go/common/workspace/project.go` Validate and ValidateConfigValue,
 * `pkg/workspace/config.go` mergeConfig and validateStackConfigValue, `project.json`'s schema), so
 * that a unit test catches a project file every `pulumi` command would refuse, without the CLI.
 */
import * as fs from "node:fs";
import { parse as parseYaml } from "yaml";

const SIMPLE_TYPES = ["string", "integer", "boolean", "array", "object"] as const;
const DECLARATION_KEYS = ["type", "items", "description", "secret", "default", "value"];

interface ItemsType {
    type: string;
    items?: ItemsType;
}

interface Declaration {
    type?: string;
    items?: ItemsType;
    description?: string;
    secret?: boolean;
    default?: unknown;
    value?: unknown;
}

export interface Project {
    name: string;
    config: Record<string, Declaration>;
}

/** A stack's config as the CLI holds it: the value, and whether it is stored `secure:`. */
export type StackValues = Record<string, { value: unknown; secure: boolean }>;

export function readProject(file: string): Project {
    const doc = parseYaml(fs.readFileSync(file, "utf8")) as { name?: unknown; config?: unknown };
    if (typeof doc.name !== "string" || doc.name === "") throw new Error("project is missing a 'name' attribute");
    const config: Record<string, Declaration> = {};
    for (const [key, raw] of Object.entries((doc.config ?? {}) as Record<string, unknown>)) {
        // A bare scalar or list is shorthand for {value: ...}.
        config[key] = raw !== null && typeof raw === "object" && !Array.isArray(raw) ? (raw as Declaration) : { value: raw };
    }
    return { name: doc.name, config };
}

function namespacedByProject(project: string, key: string): boolean {
    return !key.includes(":") || key.startsWith(`${project}:`);
}

function fullKey(project: string, key: string): string {
    return key.includes(":") ? key : `${project}:${key}`;
}

function schemaErrors(key: string, decl: Declaration): string[] {
    const errors: string[] = [];
    for (const k of Object.keys(decl)) {
        if (!DECLARATION_KEYS.includes(k)) errors.push(`config.${key}: additional property '${k}' is not allowed`);
    }
    if (decl.type !== undefined && !(SIMPLE_TYPES as readonly string[]).includes(decl.type)) {
        errors.push(`config.${key}.type: value must be one of ${SIMPLE_TYPES.map((t) => `"${t}"`).join(", ")}`);
    }
    if (decl.secret !== undefined && typeof decl.secret !== "boolean") errors.push(`config.${key}.secret: expected boolean`);
    return errors;
}

/** The errors `pulumi` reports when it loads this project file (it stops at the first). */
export function projectErrors(project: Project): string[] {
    const errors: string[] = [];
    for (const [key, decl] of Object.entries(project.config)) {
        errors.push(...schemaErrors(key, decl));
        if (decl.default !== undefined && decl.value !== undefined) {
            errors.push(`project config '${key}' cannot have both a 'default' and 'value' attribute`);
        }
        const typed = decl.type !== undefined;
        if (namespacedByProject(project.name, key)) {
            if (typed && decl.type === "array" && decl.items === undefined) {
                errors.push(
                    `The configuration key '${key}' declares an array but does not specify the underlying type via the 'items' attribute`,
                );
            }
            if (typed && decl.default !== undefined && decl.default !== null && !validValue(decl.type!, decl.items, decl.default)) {
                errors.push(
                    `The default value specified for configuration key '${key}' is not of the expected type '${typeName(decl.type!, decl.items)}'`,
                );
            }
        } else {
            if (typed) errors.push(`Configuration key '${key}' is not namespaced by the project and should not define a type`);
            if (decl.default !== undefined)
                errors.push(`Configuration key '${key}' is not namespaced by the project and should not define a default value.`);
            if (decl.value === undefined) errors.push(`Configuration key '${key}' is namespaced and must provide an attribute 'value'`);
        }
    }
    return errors;
}

function typeName(type: string, items?: ItemsType): string {
    return items ? `array<${typeName(items.type, items.items)}>` : type;
}

/** ValidateConfigValue: scalars may come as strings, as a stack file stores them. */
function validValue(type: string, items: ItemsType | undefined, value: unknown): boolean {
    switch (type) {
        case "string":
            return typeof value === "string";
        case "integer":
            return (typeof value === "number" && Number.isInteger(value)) || (typeof value === "string" && /^[+-]?\d+$/.test(value));
        case "boolean":
            return typeof value === "boolean" || value === "true" || value === "false";
        case "object":
            return value !== null && typeof value === "object" && !Array.isArray(value);
        default:
            return Array.isArray(value) && items !== undefined && value.every((v) => validValue(items.type, items.items, v));
    }
}

/**
 * mergeConfig + validateStackConfigValues: the config the program receives (declared defaults
 * filled in), or the error the CLI stops with.
 */
export function effectiveConfig(
    project: Project,
    stackName: string,
    stack: StackValues,
): { config: StackValues; error?: undefined } | { error: string; config?: undefined } {
    const config: StackValues = { ...stack };
    const missing: string[] = [];
    for (const key of Object.keys(project.config).sort()) {
        const decl = project.config[key];
        const full = fullKey(project.name, key);
        const hasDefault = decl.default !== undefined && decl.default !== null;
        const hasValue = decl.value !== undefined && decl.value !== null;
        if (full in config) continue;
        if (!hasDefault && !hasValue && full.startsWith(`${project.name}:`)) missing.push(key);
        else if (hasDefault || hasValue) config[full] = { value: hasDefault ? decl.default : decl.value, secure: false };
    }
    if (missing.length > 0) {
        const list =
            missing.length === 1
                ? `'${missing[0]}'`
                : `${missing
                      .slice(0, -1)
                      .map((k) => `'${k}'`)
                      .join(", ")} and '${missing[missing.length - 1]}'`;
        return { error: `Stack '${stackName}' is missing configuration ${missing.length > 1 ? "values" : "value"} ${list}` };
    }
    for (const key of Object.keys(project.config).sort()) {
        const decl = project.config[key];
        const entry = config[fullKey(project.name, key)];
        if (decl.type === undefined || entry === undefined) continue;
        if (decl.secret && !entry.secure)
            return { error: `Stack '${stackName}' with configuration key '${key}' must be encrypted as it's secret` };
        if (!validValue(decl.type, decl.items, entry.value)) {
            return { error: `Stack '${stackName}' with configuration key '${key}' must be of type '${typeName(decl.type, decl.items)}'` };
        }
    }
    return { config };
}
