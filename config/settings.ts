import * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import { ConfigError, ConfigProblem, problemsFromIssues, unknownKeyMessage } from "./model/errors";
import { PROJECT, SECRET_KEYS, SecretKey, type Settings, STRUCTURED_KEYS, StructuredKey, structuredSettingsSchema } from "./model/keys";
import { crossKeyProblems, plaintextSecretProblems } from "./rules";
import { bundleProblems } from "./model/bundle-schema";

export type { Settings } from "./model/keys";

/** What the program read from stack config, before parsing. */
export interface RawConfig {
    /** Structured values by key (without the project prefix); undefined when unset. */
    readonly values: Partial<Record<StructuredKey, unknown>>;
    readonly secrets: Partial<Record<SecretKey, pulumi.Output<string>>>;
    /** Project keys that this program does not know. */
    readonly unknownKeys: readonly string[];
    /** The cluster names in the `computePlaneKubeconfigs` secret (its keys only, never its values). */
    readonly computePlaneKubeconfigNames?: readonly string[];
    /** Secret keys that are set, but stored in plain text (set without `--secret`). */
    readonly plaintextSecretKeys?: readonly SecretKey[];
    /** Secrets whose text is not of their form (config/secret-forms.ts): key and position only. */
    readonly secretFormProblems?: readonly ConfigProblem[];
}

export interface ParseOptions {
    /** The release names of the catalog, for `releases` overrides. */
    readonly releaseNames: readonly string[];
    /** The bundle releases the program knows, for `bundle.release`; unset: not checked. */
    readonly bundleReleases?: readonly string[];
}

/**
 * Parses raw stack config into frozen Settings, or throws one ConfigError naming every bad key.
 * Pure: it reads nothing but its arguments. Cross-key rules run once every key has parsed.
 */
export function parseSettings(raw: RawConfig, options: ParseOptions): Settings {
    const problems: ConfigProblem[] = [
        ...raw.unknownKeys.map((key) => ({
            key: `${PROJECT}:${key}`,
            message: unknownKeyMessage("unknown setting", key, [...STRUCTURED_KEYS, ...SECRET_KEYS]),
            allowed: [...STRUCTURED_KEYS, ...SECRET_KEYS].map((k) => `${PROJECT}:${k}`).join(", "),
        })),
        ...plaintextSecretProblems(raw.plaintextSecretKeys ?? []),
        ...(raw.secretFormProblems ?? []),
    ];
    const parsed = structuredSettingsSchema.safeParse(raw.values, { reportInput: true });
    if (!parsed.success) {
        // Each key's issues under its own key, in the keys' order, as if each key parsed alone.
        for (const key of STRUCTURED_KEYS) {
            const issues = parsed.error.issues
                .filter((issue) => issue.path[0] === key)
                .map((issue) => ({ ...issue, path: issue.path.slice(1) }));
            problems.push(...problemsFromIssues(`${PROJECT}:${key}`, issues, raw.values[key], structuredSettingsSchema.shape[key]));
        }
        const elsewhere = parsed.error.issues.filter((issue) => !STRUCTURED_KEYS.some((key) => key === issue.path[0]));
        problems.push(...problemsFromIssues(PROJECT, elsewhere, raw.values));
    }
    // Unknown keys alone do not hide the rules that span keys: those run on the config without
    // them, so one pass shows every problem.
    const data = parsed.success ? parsed.data : withoutUnknownKeys(raw.values, parsed.error.issues);
    if (data === undefined) throw new ConfigError(problems);

    const settings: Settings = {
        ...data,
        computePlaneKubeconfigNames: raw.computePlaneKubeconfigNames ?? [],
        secrets: raw.secrets,
    };
    problems.push(...crossKeyProblems(settings, options.releaseNames), ...bundleProblems(settings.bundle, options.bundleReleases));
    if (problems.length > 0) throw new ConfigError(problems);
    return deepFreeze(settings);
}

/** The parsed config once the unknown keys are dropped, when they were its only problem. */
function withoutUnknownKeys(
    values: RawConfig["values"],
    issues: readonly z.core.$ZodIssue[],
): z.infer<typeof structuredSettingsSchema> | undefined {
    if (!issues.every((issue) => issue.code === "unrecognized_keys")) return undefined;
    const cleaned = structuredClone(values) as Record<PropertyKey, unknown>;
    for (const issue of issues) {
        if (issue.code !== "unrecognized_keys") continue;
        let parent: unknown = cleaned;
        for (const part of issue.path) parent = (parent as Record<PropertyKey, unknown> | undefined)?.[part];
        if (parent && typeof parent === "object") for (const key of issue.keys) delete (parent as Record<string, unknown>)[key];
    }
    const again = structuredSettingsSchema.safeParse(cleaned);
    return again.success ? again.data : undefined;
}

function deepFreeze<T>(value: T): T {
    if (value && typeof value === "object" && !pulumi.Output.isInstance(value) && !Object.isFrozen(value)) {
        Object.freeze(value);
        for (const child of Object.values(value)) deepFreeze(child);
    }
    return value;
}
