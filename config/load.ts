import * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import { ConfigError, ConfigProblem, keyPath, problemsFromZod } from "./errors";
import {
    clusterSchema,
    ControlPlaneConfig,
    openbaoAccessSchema,
    controlPlaneSchema,
    registrySchema,
    ReleaseOverride,
    releaseOverrideSchema,
} from "./schema";
import { crossFieldProblems } from "./validate";
import { ComputePlaneConfig, computePlanesSchema, RESERVED_PULL_SECRET_NAMES } from "./compute-plane-schema";
import { DnsConfig, dnsSchema, ecrRegistry } from "./aws-schema";

import { PROJECT } from "./project";

export { PROJECT };

/** Structured (non-secret) keys, each parsed by its schema. */
const STRUCTURED = {
    controlPlane: controlPlaneSchema,
    releases: z.record(z.string(), releaseOverrideSchema).default({}),
    cluster: clusterSchema,
    registry: registrySchema,
    computePlanes: computePlanesSchema,
    openbaoAccess: openbaoAccessSchema,
    dns: dnsSchema,
} as const;

/** Every project key the program reads. */
export const STRUCTURED_KEYS = Object.keys(STRUCTURED) as readonly string[];

/** Secret keys: read only through getSecret, so they stay Pulumi secrets end to end. */
export const SECRET_KEYS = [
    "ngcApiKey",
    "accountRegistryKey",
    "sidecarRegistryKey",
    "chartRegistryPassword",
    "cassandraPassword",
    "kubeconfig",
    "computePlaneKubeconfigs",
    "nvcfAdminToken",
    "openbaoToken",
] as const;
export type SecretKey = (typeof SECRET_KEYS)[number];

export interface Settings {
    readonly controlPlane: ControlPlaneConfig;
    readonly releases: Readonly<Record<string, ReleaseOverride>>;
    readonly cluster: z.infer<typeof clusterSchema>;
    readonly registry: z.infer<typeof registrySchema>;
    readonly computePlanes: readonly ComputePlaneConfig[];
    readonly openbaoAccess: z.infer<typeof openbaoAccessSchema>;
    readonly dns: DnsConfig;
    /** Clusters with an entry in the `computePlaneKubeconfigs` secret. */
    readonly computePlaneKubeconfigNames: readonly string[];
    readonly secrets: Readonly<Partial<Record<SecretKey, pulumi.Output<string>>>>;
}

/** What the program read from stack config, before parsing. */
export interface RawConfig {
    /** Structured values by key (without the project prefix); undefined when unset. */
    readonly values: Partial<Record<keyof typeof STRUCTURED, unknown>>;
    readonly secrets: Partial<Record<SecretKey, pulumi.Output<string>>>;
    /** Project keys that this program does not know. */
    readonly unknownKeys: readonly string[];
    /** The cluster names in the `computePlaneKubeconfigs` secret (its keys only, never its values). */
    readonly computePlaneKubeconfigNames?: readonly string[];
    /** Secret keys that are set, but stored in plain text (set without `--secret`). */
    readonly plaintextSecretKeys?: readonly SecretKey[];
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
    // The secret keys are not declared in Pulumi.yaml (the CLI would make them required), so the
    // CLI's own refusal of a plain-text secret is done here.
    for (const key of raw.plaintextSecretKeys ?? []) {
        problems.push({
            key: `${PROJECT}:${key}`,
            message: `is stored in plain text in the stack file: set it again with \`pulumi config set --secret ${key}\``,
        });
    }
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
        computePlanes: parsed.computePlanes as ComputePlaneConfig[],
        openbaoAccess: parsed.openbaoAccess as Settings["openbaoAccess"],
        dns: parsed.dns as DnsConfig,
        computePlaneKubeconfigNames: raw.computePlaneKubeconfigNames ?? [],
        secrets: raw.secrets,
    };
    problems.push(
        ...crossFieldProblems(settings.controlPlane).map(({ path, ...rest }) => ({
            ...rest,
            key: `${PROJECT}:controlPlane.${path}`,
        })),
        ...releaseOverrideProblems(settings, options.releaseNames),
        ...secretProblems(settings),
        ...computePlaneProblems(settings),
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
    if (settings.cluster.eks && (settings.cluster.context || settings.secrets.kubeconfig)) {
        problems.push({
            key: `${PROJECT}:cluster.eks`,
            message: "an EKS cluster is reached through its name alone: set no context and no kubeconfig secret",
        });
    }
    const has = (key: SecretKey) => settings.secrets[key] !== undefined;
    const ecrImages = ecrRegistry(settings.controlPlane.global.image.registry) !== undefined;
    if (settings.registry.pullSecret.enabled && !ecrImages && !has("ngcApiKey")) {
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

function computePlaneProblems(settings: Settings): ConfigProblem[] {
    const problems: ConfigProblem[] = [];
    const pullSecret = settings.registry.pullSecret.name;
    if (settings.computePlanes.length > 0 && (RESERVED_PULL_SECRET_NAMES as readonly string[]).includes(pullSecret)) {
        problems.push({
            key: `${PROJECT}:registry.pullSecret.name`,
            message: "the NVCA mirror reserves this pull secret name",
            given: pullSecret,
            allowed: "e.g. nvcr-pull-secret",
        });
    }
    const cp = settings.controlPlane;
    const proxyReachable = cp.adminIssuerProxy.enabled && cp.adminIssuerProxy.gateway.enabled;
    if (settings.computePlanes.length > 0 && !proxyReachable && !settings.secrets.nvcfAdminToken) {
        problems.push({
            key: `${PROJECT}:nvcfAdminToken`,
            message:
                "is required to register GPU clusters when the admin issuer proxy's route is off: " +
                "set a token with the cluster-management scope from your identity provider " +
                "(`pulumi config set --secret nvcfAdminToken <token>`)",
        });
    }
    settings.computePlanes.forEach((plane, i) => {
        const key = (path: string) => `${PROJECT}:computePlanes[${i}].${path}`;
        const hasKubeconfig = settings.computePlaneKubeconfigNames.includes(plane.clusterName);
        if (plane.cluster.eks && (plane.cluster.sameAsControlPlane || plane.cluster.context || hasKubeconfig)) {
            problems.push({
                key: key("cluster.eks"),
                message: "an EKS cluster is reached through its name alone: no sameAsControlPlane, context or kubeconfig",
            });
        }
        if (plane.cluster.sameAsControlPlane && (plane.cluster.context || hasKubeconfig)) {
            problems.push({
                key: key("cluster.sameAsControlPlane"),
                message: "a compute plane on the control plane's cluster takes no context or kubeconfig of its own",
                given: true,
            });
        }
        if (!plane.cluster.sameAsControlPlane && !plane.cluster.context && !hasKubeconfig && !plane.cluster.eks) {
            // Gotcha 16: the ambient context may be another cluster, whose JWKS would be registered.
            problems.push({
                key: key("cluster"),
                message: `says nothing about how to reach the GPU cluster ${plane.clusterName}`,
                allowed:
                    "sameAsControlPlane: true, a context, eks: {name, region}, or a kubeconfig under computePlaneKubeconfigs." +
                    plane.clusterName,
            });
        }
        if (plane.featureGates.includes("KAIScheduler") && !plane.kaiSchedulerInstalled) {
            problems.push({
                key: key("featureGates"),
                message: "the KAIScheduler gate keeps NVCA unhealthy on a cluster without the KAI scheduler",
                given: "KAIScheduler",
                allowed: "set kaiSchedulerInstalled: true once the KAI scheduler runs there",
            });
        }
    });
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
    const plaintextSecretKeys: SecretKey[] = [];
    for (const key of SECRET_KEYS) {
        const value = config.getSecret(key);
        if (value === undefined) continue;
        secrets[key] = value;
        if (!isConfigSecret(`${PROJECT}:${key}`)) plaintextSecretKeys.push(key);
    }
    return {
        values,
        secrets,
        unknownKeys,
        computePlaneKubeconfigNames: secretObjectKeys(`${PROJECT}:computePlaneKubeconfigs`),
        plaintextSecretKeys,
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
