import * as pulumi from "@pulumi/pulumi";
import { PROJECT, SECRET_KEYS, SecretKey, STRUCTURED_KEYS } from "./model/keys";
import type { ConfigProblem } from "./model/errors";
import { secretFormProblems } from "./secret-forms";
import { ParseOptions, parseSettings, RawConfig, Settings } from "./settings";
import { unsetSettingWarnings } from "./unset-warnings";

/**
 * The one module that reads pulumi.Config: it gathers the stack's raw config, and parseSettings
 * (config/settings.ts) turns it into Settings.
 */

// Re-exported for the modules that import them from here.
export { PROJECT, SECRET_KEYS, STRUCTURED_KEYS };
export type { SecretKey, Settings };

/** Reads the stack's config through pulumi.Config; secrets stay Outputs. */
export function readRawConfig(): RawConfig {
    const config = new pulumi.Config(PROJECT);
    const known = new Set<string>([...STRUCTURED_KEYS, ...SECRET_KEYS]);
    const unknownKeys = Object.keys(pulumi.runtime.allConfig())
        .filter((k) => k.startsWith(`${PROJECT}:`))
        .map((k) => k.slice(PROJECT.length + 1))
        .filter((k) => !known.has(k))
        .sort();
    const values: RawConfig["values"] = {};
    for (const key of STRUCTURED_KEYS) {
        try {
            values[key] = config.getObject<unknown>(key);
        } catch {
            // Text that is not JSON (a map quoted into a string): the schema then says a string is not what the key takes.
            values[key] = pulumi.runtime.getConfig(`${PROJECT}:${key}`);
        }
    }
    const secrets: RawConfig["secrets"] = {};
    const plaintextSecretKeys: SecretKey[] = [];
    const formProblems: ConfigProblem[] = [];
    for (const key of SECRET_KEYS) {
        const value = config.getSecret(key);
        if (value === undefined) continue;
        secrets[key] = value;
        if (!isConfigSecret(`${PROJECT}:${key}`)) plaintextSecretKeys.push(key);
        // The text as the engine handed it over; it stays inside the check, which reports positions only.
        const text = pulumi.runtime.getConfig(`${PROJECT}:${key}`);
        if (text) formProblems.push(...secretFormProblems(key, text));
    }
    return {
        values,
        secrets,
        unknownKeys,
        computePlaneKubeconfigNames: secretObjectKeys(`${PROJECT}:computePlaneKubeconfigs`),
        plaintextSecretKeys,
        secretFormProblems: formProblems,
    };
}

/**
 * Whether the engine handed this key over as a secret. The SDK exports this function at run time
 * but keeps it out of its type declarations (it is marked internal); a test fails if it goes away.
 */
export function isConfigSecret(key: string): boolean {
    const fn = (pulumi.runtime as unknown as { isConfigSecret?: (k: string) => boolean }).isConfigSecret;
    if (typeof fn !== "function") throw new Error("@pulumi/pulumi no longer exports runtime.isConfigSecret");
    return fn(key);
}

/** The keys of a secret object in config; its values are never read here. */
function secretObjectKeys(key: string): string[] {
    const raw = pulumi.runtime.getConfig(key);
    if (raw === undefined) return [];
    try {
        const parsed = JSON.parse(raw) as unknown;
        return parsed && typeof parsed === "object" && !Array.isArray(parsed) ? Object.keys(parsed) : [];
    } catch {
        return [];
    }
}

/** The stack's settings, read and parsed: what the program calls before declaring anything. */
export function loadSettings(options: ParseOptions): Settings {
    const raw = readRawConfig();
    const settings = parseSettings(raw, options);
    // Only for a config that parsed: beside its errors, a warning would bury them.
    for (const warning of unsetSettingWarnings(raw.values)) void pulumi.log.warn(warning);
    return settings;
}
