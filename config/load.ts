import * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import { ConfigError, ConfigProblem, keyPath, problemsFromZod } from "./errors";
import {
    clusterSchema,
    ControlPlaneConfig,
    controlPlaneSchema,
    registrySchema,
    ReleaseOverride,
    releaseOverrideSchema,
} from "./schema";
import { crossFieldProblems } from "./validate";

export const PROJECT = "nvcf-self-managed";

/** Structured (non-secret) keys, each parsed by its schema. */
const STRUCTURED = {
    controlPlane: controlPlaneSchema,
    releases: z.record(z.string(), releaseOverrideSchema).default({}),
    cluster: clusterSchema,
    registry: registrySchema,
} as const;

/** Secret keys: read only through getSecret, so they stay Pulumi secrets end to end. */
export const SECRET_KEYS = [
    "ngcApiKey",
    "accountRegistryKey",
    "sidecarRegistryKey",
    "chartRegistryPassword",
    "cassandraPassword",
    "kubeconfig",
] as const;
export type SecretKey = (typeof SECRET_KEYS)[number];

export interface Settings {
    readonly controlPlane: ControlPlaneConfig;
    readonly releases: Readonly<Record<string, ReleaseOverride>>;
    readonly cluster: z.infer<typeof clusterSchema>;
    readonly registry: z.infer<typeof registrySchema>;
    readonly secrets: Readonly<Partial<Record<SecretKey, pulumi.Output<string>>>>;
}

/** What the program read from stack config, before parsing. */
export interface RawConfig {
    /** Structured values by key (without the project prefix); undefined when unset. */
    readonly values: Partial<Record<keyof typeof STRUCTURED, unknown>>;
    readonly secrets: Partial<Record<SecretKey, pulumi.Output<string>>>;
    /** Project keys that this program does not know. */
    readonly unknownKeys: readonly string[];
}

export interface ParseOptions {
    /** The release names of the catalog, for `releases` overrides. */
    readonly releaseNames: readonly string[];
}

/** Parses raw stack config into Settings, or throws one ConfigError naming every bad key. */
export function parseSettings(raw: RawConfig, options: ParseOptions): Settings {
    const problems: ConfigProblem[] = raw.unknownKeys.map((key) => ({
        key: `${PROJECT}:${key}`,
        message: "unknown setting (a typo?)",
        allowed: [...Object.keys(STRUCTURED), ...SECRET_KEYS].map((k) => `${PROJECT}:${k}`).join(", "),
    }));
    const parsed: Partial<Record<keyof typeof STRUCTURED, unknown>> = {};
    for (const [key, schema] of Object.entries(STRUCTURED) as [keyof typeof STRUCTURED, z.ZodType][]) {
        const result = schema.safeParse(raw.values[key], { reportInput: true });
        if (result.success) parsed[key] = result.data;
        else problems.push(...problemsFromZod(`${PROJECT}:${key}`, result.error, raw.values[key]));
    }
    if (problems.length > 0) throw new ConfigError(problems);

    const settings: Settings = {
        controlPlane: parsed.controlPlane as ControlPlaneConfig,
        releases: parsed.releases as Record<string, ReleaseOverride>,
        cluster: parsed.cluster as Settings["cluster"],
        registry: parsed.registry as Settings["registry"],
        secrets: raw.secrets,
    };
    problems.push(
        ...crossFieldProblems(settings.controlPlane).map(({ path, ...rest }) => ({
            ...rest,
            key: `${PROJECT}:controlPlane.${path}`,
        })),
        ...releaseOverrideProblems(settings, options.releaseNames),
        ...secretProblems(settings),
    );
    if (problems.length > 0) throw new ConfigError(problems);
    return deepFreeze(settings);
}

function releaseOverrideProblems(settings: Settings, releaseNames: readonly string[]): ConfigProblem[] {
    return Object.keys(settings.releases)
        .filter((name) => !releaseNames.includes(name))
        .map((name) => ({
            key: keyPath(`${PROJECT}:releases`, [name]),
            message: "unknown release",
            given: name,
            allowed: releaseNames.join(", "),
        }));
}

function secretProblems(settings: Settings): ConfigProblem[] {
    const problems: ConfigProblem[] = [];
    const has = (key: SecretKey) => settings.secrets[key] !== undefined;
    if (settings.registry.pullSecret.enabled && !has("ngcApiKey")) {
        problems.push({
            key: `${PROJECT}:ngcApiKey`,
            message:
                "is required for the image pull secrets (set it with `pulumi config set --secret ngcApiKey <key>`), " +
                "or set registry.pullSecret.enabled: false when nodes pull with their own identity",
        });
    }
    const sources = settings.controlPlane.global.helm.sources;
    const ngcCharts = !sources.url && !sources.path && sources.registry === "nvcr.io";
    if (ngcCharts && !has("ngcApiKey") && !has("chartRegistryPassword")) {
        problems.push({
            key: `${PROJECT}:ngcApiKey`,
            message: "is required to pull the charts from nvcr.io (or set chartRegistryPassword)",
        });
    }
    return problems;
}

/** Reads the stack's config through pulumi.Config; secrets stay Outputs. */
export function readRawConfig(): RawConfig {
    const config = new pulumi.Config(PROJECT);
    const known = new Set<string>([...Object.keys(STRUCTURED), ...SECRET_KEYS]);
    const unknownKeys = Object.keys(pulumi.runtime.allConfig())
        .filter((k) => k.startsWith(`${PROJECT}:`))
        .map((k) => k.slice(PROJECT.length + 1))
        .filter((k) => !known.has(k))
        .sort();
    const values: RawConfig["values"] = {};
    for (const key of Object.keys(STRUCTURED) as (keyof typeof STRUCTURED)[]) {
        values[key] = config.getObject<unknown>(key);
    }
    const secrets: RawConfig["secrets"] = {};
    for (const key of SECRET_KEYS) {
        const value = config.getSecret(key);
        if (value !== undefined) secrets[key] = value;
    }
    return { values, secrets, unknownKeys };
}

export function loadSettings(options: ParseOptions): Settings {
    return parseSettings(readRawConfig(), options);
}

function deepFreeze<T>(value: T): T {
    if (value && typeof value === "object" && !pulumi.Output.isInstance(value) && !Object.isFrozen(value)) {
        Object.freeze(value);
        for (const child of Object.values(value as Record<string, unknown>)) deepFreeze(child);
    }
    return value;
}
