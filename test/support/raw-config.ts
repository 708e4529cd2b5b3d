import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import { parse as parseYaml } from "yaml";
import { RELEASE_NAMES } from "../../components/catalog/control-plane";
import { ConfigError, ConfigProblem } from "../../config/model/errors";
import { PROJECT, SECRET_KEYS, SecretKey, STRUCTURED_KEYS } from "../../config/model/keys";
import { parseSettings, RawConfig, Settings } from "../../config/settings";

type Json = Record<string, unknown>;

/** What a test changes in the dev stack's raw config. */
export interface RawChanges {
    /** Deep-merged over the dev stack's `controlPlane` (objects merge, `undefined` deletes). */
    readonly controlPlane?: Json;
    /** Other structured keys, deep-merged over the dev stack's the same way. */
    readonly values?: Json;
    /** Secrets by key; `undefined` removes one (the dev stack has only ngcApiKey). */
    readonly secrets?: Partial<Record<SecretKey, string | undefined>>;
    readonly unknownKeys?: readonly string[];
    readonly plaintextSecretKeys?: readonly SecretKey[];
    readonly computePlaneKubeconfigNames?: readonly string[];
}

const DEV_FILE = path.resolve(__dirname, "..", "..", "Pulumi.dev.yaml");

/** Pulumi.dev.yaml, parsed once: the fuzz test alone asks for it some thousand times. */
let devFile: { config?: Json } | undefined;

/**
 * The dev stack's config as readRawConfig hands it over (with the NGC key a user sets before
 * `pulumi up`), changed as asked. No Pulumi program runs.
 */
export function devRaw(changes: RawChanges = {}): RawConfig {
    devFile ??= parseYaml(fs.readFileSync(DEV_FILE, "utf8")) as { config?: Json };
    // A copy: callers change what they get.
    const doc = structuredClone(devFile);
    const values: Json = {};
    for (const key of STRUCTURED_KEYS) values[key] = doc.config?.[`${PROJECT}:${key}`];
    const changed = merge(values, { ...changes.values, ...(changes.controlPlane ? { controlPlane: changes.controlPlane } : {}) });
    const given: Partial<Record<SecretKey, string | undefined>> = { ngcApiKey: "nvapi-test-key", ...changes.secrets };
    const secrets: RawConfig["secrets"] = {};
    for (const key of SECRET_KEYS) {
        const value = given[key];
        if (value !== undefined) secrets[key] = pulumi.output(value);
    }
    return {
        values: changed,
        secrets,
        unknownKeys: changes.unknownKeys ?? [],
        plaintextSecretKeys: changes.plaintextSecretKeys ?? [],
        computePlaneKubeconfigNames: changes.computePlaneKubeconfigNames ?? [],
    };
}

function isPlain(v: unknown): v is Json {
    return typeof v === "object" && v !== null && !Array.isArray(v);
}

function merge(base: Json, over: Json): Json {
    const out: Json = { ...base };
    for (const [k, v] of Object.entries(over)) {
        if (v === undefined) delete out[k];
        else out[k] = isPlain(v) && isPlain(out[k]) ? merge(out[k], v) : v;
    }
    return out;
}

/** parseSettings with the catalog's release names, as the program calls it. */
export function parse(raw: RawConfig): Settings {
    return parseSettings(raw, { releaseNames: RELEASE_NAMES });
}

/** The ConfigError parseSettings throws for this raw config. */
export function configError(raw: RawConfig): ConfigError {
    try {
        parse(raw);
    } catch (error) {
        assert.ok(error instanceof ConfigError, `a ConfigError, not ${String(error)}`);
        return error;
    }
    assert.fail("parseSettings accepted the config; a ConfigError was expected");
}

/** A problem as a test expects it: key and message always; given and allowed when stated. */
export type Expected = Pick<ConfigProblem, "key" | "message"> & Partial<Pick<ConfigProblem, "given" | "allowed">>;

/**
 * Asserts that parseSettings reports exactly these problems, in this order, all in one error:
 * every key and message, and the given value and the allowed values where the test states them.
 */
export function assertProblems(raw: RawConfig, expected: readonly Expected[]): ConfigError {
    const error = configError(raw);
    const brief = (p: Expected) => `${p.key}: ${p.message}`;
    assert.deepEqual(error.problems.map(brief), expected.map(brief));
    expected.forEach((want, i) => {
        if ("given" in want) assert.deepEqual(error.problems[i].given, want.given, `given of ${want.key}`);
        if ("allowed" in want) assert.equal(error.problems[i].allowed, want.allowed, `allowed of ${want.key}`);
    });
    return error;
}
