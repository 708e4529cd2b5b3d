/**
 * Pulumi.yaml as the real CLI reads it: every `pulumi` command loads it first, and a stack with
 * only the README's required config must reach the program.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, test } from "node:test";
import { parse as parseYaml } from "yaml";
import { isConfigSecret, PROJECT, SECRET_KEYS, STRUCTURED_KEYS } from "../config/load";
import { devConfig, releases, runProgram, runProgramExpectingError, stackConfig, type StackConfig } from "./support/harness";
import { effectiveConfig, projectErrors, readProject, type StackValues } from "./support/pulumi-project";

const ROOT = path.resolve(__dirname, "..");
const PROJECT_FILE = path.join(ROOT, "Pulumi.yaml");
const project = readProject(PROJECT_FILE);

/** The dev stack as the README sets it up: Pulumi.dev.yaml, then `pulumi config set --secret ngcApiKey`. */
function readmeStack(): StackValues {
    const values: StackValues = {};
    for (const [key, value] of Object.entries(stackConfig("dev").config)) values[key] = { value, secure: false };
    values[`${PROJECT}:ngcApiKey`] = { value: "nvapi-test-key", secure: true };
    return values;
}

/** The config and secret keys the program receives from the CLI. */
function programInput(values: StackValues): { config: StackConfig; secretKeys: string[] } {
    const config: StackConfig = {};
    const secretKeys: string[] = [];
    for (const [key, { value, secure }] of Object.entries(values)) {
        config[key] = value;
        if (secure) secretKeys.push(key);
    }
    return { config, secretKeys };
}

describe("Pulumi.yaml as the Pulumi CLI loads it", () => {
    test("the CLI accepts the project file", () => {
        assert.deepEqual(projectErrors(project), []);
    });

    test("the check is the CLI's: an array without items, or a secret with a default, is refused", () => {
        const broken = structuredClone(project);
        broken.config.computePlanes = { type: "array", description: "x" };
        assert.deepEqual(projectErrors(broken), [
            "The configuration key 'computePlanes' declares an array but does not specify the underlying type via the 'items' attribute",
        ]);
        const secretWithDefault = structuredClone(project);
        secretWithDefault.config.kubeconfig = { type: "string", secret: true, default: "" };
        const stack = readmeStack();
        assert.equal(
            effectiveConfig(secretWithDefault, "dev", stack).error,
            "Stack 'dev' with configuration key 'kubeconfig' must be encrypted as it's secret",
        );
    });

    test("the README's set-up (Pulumi.dev.yaml and ngcApiKey) is all a stack needs", () => {
        const result = effectiveConfig(project, "dev", readmeStack());
        assert.equal(result.error, undefined);
    });

    test("controlPlane is the one required key; every other key has a default", () => {
        const result = effectiveConfig(project, "dev", { [`${PROJECT}:ngcApiKey`]: { value: "k", secure: true } });
        assert.equal(result.error, "Stack 'dev' is missing configuration value 'controlPlane'");
        const required = Object.entries(project.config).filter(([, d]) => d.default === undefined && d.value === undefined);
        assert.deepEqual(
            required.map(([k]) => k),
            ["controlPlane"],
        );
    });

    test("the program run with the CLI's config (defaults filled in) declares what the dev stack declares", async () => {
        const result = effectiveConfig(project, "dev", readmeStack());
        assert.ok(result.config);
        const { config, secretKeys } = programInput(result.config);
        // Every default really is filled in: this run differs from the plain dev run in its config.
        for (const key of STRUCTURED_KEYS.filter((k) => k !== "controlPlane")) assert.ok(`${PROJECT}:${key}` in config, key);
        const withDefaults = await runProgram(config, secretKeys);
        const dev = devConfig();
        const plain = await runProgram(dev.config, dev.secretKeys);
        assert.ok(releases(withDefaults).length > 20);
        // By URN: the order of registration follows the timing of the run, not the config.
        const declared = (run: typeof plain) => run.resources.map((r) => [r.urn, r.inputs] as const).sort(([a], [b]) => (a < b ? -1 : 1));
        assert.deepEqual(declared(withDefaults), declared(plain), "a default must mean the same as an unset key");
    });

    test("the structured keys are declared with a type and a description; the secret keys are listed, not declared", () => {
        assert.deepEqual(Object.keys(project.config).sort(), [...STRUCTURED_KEYS].sort());
        for (const [key, decl] of Object.entries(project.config)) assert.ok(decl.type && decl.description, key);
        const comments = fs
            .readFileSync(PROJECT_FILE, "utf8")
            .split("\n")
            .filter((l) => l.startsWith("#"))
            .join("\n");
        for (const key of SECRET_KEYS) assert.match(comments, new RegExp(`^#\\s+${key}\\s`, "m"), key);
    });

    test("the runtime runs index.ts through tsx, which npm ci installs", () => {
        const doc = parseYaml(fs.readFileSync(PROJECT_FILE, "utf8")) as { runtime: { options: { nodeargs: string } } };
        assert.match(doc.runtime.options.nodeargs, /--import tsx/);
        const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as Record<string, Record<string, string>>;
        assert.ok(pkg.dependencies.tsx, "tsx is a dependency of the program, not only of its tests");
    });
});

describe("secrets stored without --secret", () => {
    test("the program refuses a secret key stored in plain text, before any resource", async () => {
        const { config, secretKeys } = devConfig();
        const { error, resources } = await runProgramExpectingError(
            { ...config, [`${PROJECT}:nvcfAdminToken`]: "plain-token" },
            secretKeys,
        );
        assert.match(
            error.message,
            /nvcf-self-managed:nvcfAdminToken: is stored in plain text in the stack file: set it again with `pulumi config set --secret nvcfAdminToken`/,
        );
        assert.doesNotMatch(error.message, /plain-token/);
        assert.deepEqual(resources, []);
    });

    test("the SDK still tells the program which keys are secret", () => {
        assert.equal(typeof isConfigSecret, "function");
        assert.equal(isConfigSecret(`${PROJECT}:no-such-key-${Date.now()}`), false);
    });
});
