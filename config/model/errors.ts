import * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import { closestKey, keysAt } from "./suggest";

/** One bad setting: where it is, what was given, what is allowed. */
export interface ConfigProblem {
    /** The full key path, e.g. `nvcf-self-managed:controlPlane.nats.workerAuth`. */
    key: string;
    message: string;
    given?: unknown;
    allowed?: string;
}

/**
 * Every bad setting at once, thrown before any resource is declared. A RunError, so Pulumi
 * prints the message alone, without a stack trace.
 */
export class ConfigError extends pulumi.RunError {
    readonly problems: ConfigProblem[];
    constructor(problems: ConfigProblem[]) {
        super(["Invalid stack configuration:", ...problems.map((p) => `  - ${formatProblem(p)}`)].join("\n"));
        this.name = "ConfigError";
        this.problems = problems;
    }
}

/**
 * A key named like a credential (its last word: `password`, `ngcApiKey`, `nkeySeed`, a bare
 * `auth`): its value is never echoed, since the pull-request workflow posts these messages.
 * `workerAuth` (a mode) is not one.
 */
export function credentialLike(name: string): boolean {
    if (/^auth$/i.test(name)) return true;
    const words = name.split(/(?<=[a-z0-9])(?=[A-Z])|[_-]/);
    return /^(password|passwd|passphrase|token|key|keys|secret|secrets|seed|credential|credentials|cert|kubeconfig)$/i.test(
        words[words.length - 1] ?? "",
    );
}

export function formatProblem(p: ConfigProblem): string {
    const parts = [`${p.key}: ${p.message}`];
    const last =
        p.key
            .split(/[.[\]":]+/)
            .filter(Boolean)
            .pop() ?? p.key;
    if (p.given !== undefined)
        parts.push(credentialLike(last) ? "given a value not shown (the key may hold a credential)" : `given ${describe(p.given)}`);
    if (p.allowed) parts.push(`allowed: ${p.allowed}`);
    return parts.join("; ");
}

function describe(value: unknown): string {
    if (value === null) return "null";
    if (typeof value === "string") return JSON.stringify(value);
    if (typeof value === "object") {
        const text = JSON.stringify(value, (k, v) => (k && credentialLike(k) && v !== null && typeof v !== "object" ? "(not shown)" : v));
        return text.length > 80 ? `${text.slice(0, 77)}...` : text;
    }
    return String(value);
}

export function keyPath(root: string, path: readonly PropertyKey[]): string {
    return path.reduce<string>((acc, part) => {
        if (typeof part === "number") return `${acc}[${part}]`;
        const text = String(part);
        return /^[A-Za-z0-9_-]+$/.test(text) ? `${acc}.${text}` : `${acc}["${text}"]`;
    }, root);
}

function allowedFor(issue: z.core.$ZodIssue): string | undefined {
    switch (issue.code) {
        case "invalid_value":
            return issue.values.map((v) => String(v)).join(", ");
        case "invalid_type":
            return `a value of type ${issue.expected}`;
        case "unrecognized_keys":
            return "only the keys this program documents (see docs/settings.md)";
        case "too_small":
            return `${issue.origin === "string" ? "length " : ""}>= ${String(issue.minimum)}`;
        case "too_big":
            return `${issue.origin === "string" ? "length " : ""}<= ${String(issue.maximum)}`;
        case "invalid_format":
            // zod's own regex message already names the pattern.
            return issue.format === "regex" ? undefined : `a ${issue.format}`;
        case "custom": {
            const allowed = (issue.params as { allowed?: unknown } | undefined)?.allowed;
            return typeof allowed === "string" ? allowed : undefined;
        }
        default:
            return undefined;
    }
}

/**
 * Turns zod's issues into problems that name the stack-config key: paths start at `root`, whose
 * value is `raw`. With the key's `schema`, an unknown key gets the nearest known one and the list
 * of keys allowed at its level.
 */
export function problemsFromIssues(root: string, issues: readonly z.core.$ZodIssue[], raw: unknown, schema?: z.ZodType): ConfigProblem[] {
    return issues.flatMap((issue): ConfigProblem[] => {
        if (issue.code === "unrecognized_keys") {
            const known = schema ? keysAt(schema, issue.path) : [];
            // Never its value: a misspelled secret key (`passwrd`) would print the secret.
            return issue.keys.map((k) => ({
                key: keyPath(root, [...issue.path, k]),
                message: unknownKeyMessage("unknown key", k, known),
                allowed: known.length > 0 ? known.join(", ") : `the keys of ${keyPath(root, issue.path)} documented in docs/settings.md`,
            }));
        }
        const given = "input" in issue && issue.input !== undefined ? issue.input : valueAt(raw, issue.path);
        // zod's "expected object, received undefined" for a key that is simply not set.
        const message = issue.code === "invalid_type" && given === undefined ? "is not set, and it is required" : issue.message;
        return [{ key: keyPath(root, issue.path), message, given, allowed: allowedFor(issue) }];
    });
}

/** `unknown key (did you mean "domain"?)` when a known key is near, else `unknown key (a typo?)`. */
export function unknownKeyMessage(what: string, given: string, known: readonly string[]): string {
    const near = closestKey(given, known);
    return near ? `${what} (did you mean ${JSON.stringify(near)}?)` : `${what} (a typo?)`;
}

function valueAt(raw: unknown, path: readonly PropertyKey[]): unknown {
    let current: unknown = raw;
    for (const part of path) {
        if (current === null || typeof current !== "object") return undefined;
        current = (current as Record<PropertyKey, unknown>)[part];
    }
    return current;
}
