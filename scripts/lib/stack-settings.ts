/**
 * A stack file's settings, parsed by the program's own config code, without Pulumi: what a
 * read-only tool (`npm run status`) needs to know of the stack. Secrets are never decrypted:
 * a secret in the file is a placeholder, and one the program requires but the file lacks is
 * assumed set (as `render` does), so only the non-secret settings are to be trusted.
 */
import * as pulumi from "@pulumi/pulumi";
import { RELEASE_NAMES } from "../../components/catalog/control-plane";
import { bundleReleaseNames } from "../../components/bundle/bundle-releases";
import { SECRET_KEYS, STRUCTURED_KEYS, type SecretKey, type StructuredKey } from "../../config/model/keys";
import { parseSettings, type RawConfig, type Settings } from "../../config/settings";
import { missingSecretKeys } from "./assume-secrets";
import { projectName, stackConfig } from "./stack-config";

export interface StackSettings {
    readonly settings: Settings;
    /** Secret keys the stack file holds (encrypted: their values are unknown here). */
    readonly secretKeys: readonly SecretKey[];
}

export function stackSettings(root: string, stack: string): StackSettings {
    const project = projectName(root);
    const { config, secretKeys: fullSecretKeys } = stackConfig(stack, root);
    const short = (key: string) => key.slice(project.length + 1);
    const ours = Object.keys(config).filter((key) => key.startsWith(`${project}:`));
    const secretKeys = fullSecretKeys.map(short).filter((k): k is SecretKey => (SECRET_KEYS as readonly string[]).includes(k));
    const values: Partial<Record<StructuredKey, unknown>> = {};
    for (const key of STRUCTURED_KEYS) {
        const value = config[`${project}:${key}`];
        // pulumi.Config.getObject parses a string value as JSON; do the same.
        values[key] = typeof value === "string" ? parseJsonOr(value) : value;
    }
    const known = new Set<string>([...STRUCTURED_KEYS, ...SECRET_KEYS]);
    const raw = {
        values,
        unknownKeys: ours
            .map(short)
            .filter((k) => !known.has(k))
            .sort(),
        // The secret's keys are inside its ciphertext: assume an entry for every plane that names no
        // other way in, so the program's rule (every plane says how it is reached) holds as it did for `up`.
        computePlaneKubeconfigNames: secretKeys.includes("computePlaneKubeconfigs") ? planesWithoutOtherAccess(values.computePlanes) : [],
    };
    const parse = (assumed: readonly SecretKey[]): Settings =>
        parseSettings(
            {
                ...raw,
                secrets: Object.fromEntries([...secretKeys, ...assumed].map((k) => [k, pulumi.output(`placeholder-for-${k}`)])),
            } satisfies RawConfig,
            { releaseNames: RELEASE_NAMES, bundleReleases: bundleReleaseNames() },
        );
    try {
        return { settings: parse([]), secretKeys };
    } catch (error) {
        const missing = missingSecretKeys(error, [...SECRET_KEYS]).map((k) => short(k) as SecretKey);
        if (missing.length === 0) throw error;
        return { settings: parse(missing), secretKeys };
    }
}

function parseJsonOr(text: string): unknown {
    try {
        return JSON.parse(text);
    } catch {
        return text;
    }
}

/** The names of the planes with no eks, sameAsControlPlane or context (only the kubeconfig secret can reach them). */
function planesWithoutOtherAccess(planes: unknown): string[] {
    if (!Array.isArray(planes)) return [];
    return planes
        .filter((p): p is { clusterName: string; cluster?: Record<string, unknown> } => typeof p?.clusterName === "string")
        .filter((p) => !p.cluster?.eks && !p.cluster?.sameAsControlPlane && !p.cluster?.context)
        .map((p) => p.clusterName);
}
