import * as fs from "node:fs";
import * as path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import { parse as parseYaml } from "yaml";

/** A resource as the program registered it, with what the engine would see. */
export interface RecordedResource {
    readonly type: string;
    readonly name: string;
    readonly urn: string;
    readonly parent: string;
    /** `urn::id` of the provider reference, or "" for the default provider. */
    readonly provider: string;
    /** URNs the resource depends on: explicit dependsOn and input dependencies. */
    readonly dependencies: readonly string[];
    readonly inputs: Record<string, unknown>;
    /** The inputs with Pulumi's secret envelopes kept, to tell secret values apart. */
    readonly rawInputs: Record<string, unknown>;
    readonly custom: boolean;
    readonly retainOnDelete: boolean;
    readonly deleteBeforeReplace: boolean;
}

export interface ProgramRun {
    readonly resources: RecordedResource[];
    readonly outputs: Record<string, unknown>;
}

export const PROJECT = "nvcf-self-managed";

// The SDK captures a stack trace for every output promise and resource (source positions,
// leak reports); formatting them, with source maps on, dominates a mocked run. runProgram
// turns stack capture off while the program runs, and source maps off for good.
process.setSourceMapsEnabled(false);
const ROOT = path.resolve(__dirname, "..", "..");
const SECRET_SIG = "4dabf18193072939515e22adb298388d";

export type StackConfig = Record<string, unknown>;

/**
 * A stack file's config, with every `secure:` value replaced by a placeholder (never
 * decrypted), and the list of keys that were secret.
 */
export function stackConfig(stack: string, root: string = ROOT): { config: StackConfig; secretKeys: string[] } {
    const file = path.join(root, `Pulumi.${stack}.yaml`);
    const doc = parseYaml(fs.readFileSync(file, "utf8")) as { config?: StackConfig };
    const config: StackConfig = {};
    const secretKeys: string[] = [];
    for (const [key, value] of Object.entries(doc.config ?? {})) {
        if (value && typeof value === "object" && "secure" in value) {
            config[key] = `placeholder-for-${key.split(":")[1]}`;
            secretKeys.push(key);
        } else {
            config[key] = value;
        }
    }
    return { config, secretKeys };
}

/** The dev stack's config with the secrets a user sets before `pulumi up`. */
export function devConfig(): { config: StackConfig; secretKeys: string[] } {
    const { config, secretKeys } = stackConfig("dev");
    const key = `${PROJECT}:ngcApiKey`;
    return { config: { ...config, [key]: "nvapi-test-key" }, secretKeys: [...new Set([...secretKeys, key])] };
}

function isPlain(v: unknown): v is Record<string, unknown> {
    return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Deep-merges `over` into `base` (objects merge, everything else replaces); `undefined` deletes. */
export function withConfig(base: StackConfig, over: StackConfig): StackConfig {
    const out: StackConfig = { ...base };
    for (const [k, v] of Object.entries(over)) {
        if (v === undefined) delete out[k];
        else out[k] = isPlain(v) && isPlain(out[k]) ? withConfig(out[k] as StackConfig, v as StackConfig) : v;
    }
    return out;
}

function mockState(type: string, inputs: Record<string, unknown>): Record<string, unknown> {
    switch (type) {
        case "kubernetes:helm.sh/v3:Release":
            return {
                ...inputs,
                status: {
                    name: inputs.name,
                    namespace: inputs.namespace,
                    version: inputs.version,
                    chart: inputs.chart,
                    status: "deployed",
                    revision: 1,
                },
            };
        case "random:index/randomPassword:RandomPassword":
            return { ...inputs, result: "generated-cassandra-password" };
        case "kubernetes:gateway.networking.k8s.io/v1:Gateway":
            return { ...inputs, status: { addresses: [{ type: "Hostname", value: "k8s-gateway-0123456789.elb.us-west-2.amazonaws.com" }] } };
        case "pulumi-nodejs:dynamic/nvcf:ClusterRegistration":
            return {
                ...inputs,
                clusterId: `cluster-id-of-${String(inputs.clusterName)}`,
                clusterGroupId: `group-id-of-${String(inputs.clusterName)}`,
                oidcIssuer: "https://kubernetes.default.svc.cluster.local",
                jwksHash: "0".repeat(64),
            };
        default:
            return inputs;
    }
}

/** Invoke results in the shapes of the providers' schemas. */
function mockCall(token: string, inputs: Record<string, unknown>): Record<string, unknown> {
    switch (token) {
        case "aws:eks/getCluster:getCluster": {
            const name = String(inputs.name);
            return {
                name,
                arn: `arn:aws:eks:us-west-2:123456789012:cluster/${name}`,
                endpoint: `https://${name.toUpperCase()}0123.gr7.us-west-2.eks.amazonaws.com`,
                certificateAuthorities: [{ data: Buffer.from(`ca-of-${name}`).toString("base64") }],
                identities: [{ oidcs: [{ issuer: `https://oidc.eks.us-west-2.amazonaws.com/id/${name.toUpperCase()}0123` }] }],
                version: "1.33",
                status: "ACTIVE",
            };
        }
        case "aws:ecr/getAuthorizationToken:getAuthorizationToken":
            return {
                authorizationToken: Buffer.from("AWS:ecr-token").toString("base64"),
                password: "ecr-token",
                userName: "AWS",
                proxyEndpoint: `https://${String(inputs.registryId)}.dkr.ecr.us-west-2.amazonaws.com`,
                expiresAt: "2026-11-30T12:00:00Z",
                id: "us-west-2",
            };
        default:
            return inputs;
    }
}

type Monitor = {
    registerResource: (req: RegisterRequest, cb: (err: unknown, res: unknown) => void) => void;
    readResource: (req: ReadRequest, cb: (err: unknown, res: unknown) => void) => void;
    registerResourceOutputs: (req: unknown, cb: (err: unknown, res: unknown) => void) => void;
};
type ReadRequest = {
    getType(): string;
    getName(): string;
    getId(): string;
    getParent(): string;
    getProvider(): string;
    getDependenciesList(): string[];
    getProperties(): { toJavaScript(): Record<string, unknown> } | undefined;
};
type RegisterRequest = {
    getType(): string;
    getName(): string;
    getParent(): string;
    getProvider(): string;
    getCustom(): boolean;
    getRetainondelete(): boolean;
    getDeletebeforereplace(): boolean;
    getDependenciesList(): string[];
    getObject(): { toJavaScript(): Record<string, unknown> } | undefined;
};

/** The project name in `root`'s Pulumi.yaml (a revision may have renamed it). */
export function projectName(root: string = ROOT): string {
    const doc = parseYaml(fs.readFileSync(path.join(root, "Pulumi.yaml"), "utf8")) as { name?: unknown };
    if (typeof doc.name !== "string") throw new Error(`${path.join(root, "Pulumi.yaml")} has no project name`);
    return doc.name;
}

/**
 * Runs the real program (`<root>/index.ts`, this repository's by default) under Pulumi's mocks
 * with the given stack config and records every registration. Throws what the program throws
 * (bad config).
 */
export async function runProgram(
    config: StackConfig,
    secretKeys: string[] = [],
    stack = "test",
    root: string = ROOT,
): Promise<ProgramRun> {
    const { resources, outputs, error } = await execute(config, secretKeys, stack, root);
    if (error !== undefined) throw error;
    return { resources, outputs };
}

/** Runs the program expecting it to fail; returns the error and what was registered anyway. */
export async function runProgramExpectingError(
    config: StackConfig,
    secretKeys: string[] = [],
): Promise<{ error: Error; resources: RecordedResource[] }> {
    const { resources, error } = await execute(config, secretKeys, "test", ROOT);
    if (!(error instanceof Error)) throw new Error("the program succeeded; an error was expected");
    return { error, resources };
}

/**
 * One program run at a time: Pulumi's mock monitor and config are process-wide, and with the
 * test files in one process their `before` hooks run concurrently.
 */
let running: Promise<unknown> = Promise.resolve();

/**
 * Runs of this repository's program by their inputs: the program is deterministic, and many
 * tests start from the same stack, so each distinct stack runs once per process. Callers treat
 * a run as read-only. Other roots (worktrees at changing revisions) are never cached.
 */
const runs = new Map<string, Promise<ProgramRun & { error?: unknown }>>();

function execute(
    config: StackConfig,
    secretKeys: string[],
    stack: string,
    root: string,
): Promise<ProgramRun & { error?: unknown }> {
    const key = root === ROOT ? JSON.stringify([config, [...secretKeys].sort(), stack]) : undefined;
    const cached = key === undefined ? undefined : runs.get(key);
    if (cached) return cached;
    const run = running.then(() => executeAlone(config, secretKeys, stack, root));
    running = run.catch(() => undefined);
    if (key !== undefined) runs.set(key, run);
    return run;
}

async function executeAlone(
    config: StackConfig,
    secretKeys: string[],
    stack: string,
    root: string,
): Promise<ProgramRun & { error?: unknown }> {
    const strings: Record<string, string> = {};
    for (const [k, v] of Object.entries(config)) strings[k] = typeof v === "string" ? v : JSON.stringify(v);
    pulumi.runtime.setAllConfig(strings, secretKeys);
    await pulumi.runtime.setMocks(
        {
            newResource: (args) => ({ id: `${args.name}-id`, state: mockState(args.type, args.inputs) }),
            call: (args) => mockCall(args.token, args.inputs),
        },
        projectName(root),
        stack,
        false,
    );

    const resources: RecordedResource[] = [];
    let outstanding = 0;
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const settings = require("@pulumi/pulumi/runtime/settings") as { getMonitor(): Monitor; waitForRPCs(): Promise<void> };
    const monitor = settings.getMonitor();
    const register = monitor.registerResource.bind(monitor);
    monitor.registerResource = (req, cb) => {
        outstanding++;
        const rawInputs = req.getObject()?.toJavaScript() ?? {};
        register(req, (err, res) => {
            const urn = (res as { getUrn?: () => string } | undefined)?.getUrn?.() ?? "";
            resources.push({
                type: req.getType(),
                name: req.getName(),
                urn,
                parent: req.getParent(),
                provider: req.getProvider(),
                custom: req.getCustom(),
                retainOnDelete: req.getRetainondelete(),
                deleteBeforeReplace: req.getDeletebeforereplace(),
                dependencies: req.getDependenciesList(),
                inputs: unwrapSecrets(rawInputs) as Record<string, unknown>,
                rawInputs,
            });
            outstanding--;
            cb(err, res);
        });
    };
    // Components report their outputs late (once they resolve); wait for those too, so none
    // reaches the next test's monitor.
    const registerOutputs = monitor.registerResourceOutputs.bind(monitor);
    monitor.registerResourceOutputs = (req, cb) => {
        outstanding++;
        registerOutputs(req, (err, res) => {
            outstanding--;
            cb(err, res);
        });
    };
    // Reads of existing objects (`get`, or an `id` option) go through ReadResource instead.
    const read = monitor.readResource.bind(monitor);
    monitor.readResource = (req, cb) => {
        outstanding++;
        const rawInputs = req.getProperties()?.toJavaScript() ?? {};
        read(req, (err, res) => {
            resources.push({
                type: req.getType(),
                name: req.getName(),
                urn: (res as { getUrn?: () => string } | undefined)?.getUrn?.() ?? "",
                parent: req.getParent(),
                provider: req.getProvider(),
                custom: true,
                retainOnDelete: false,
                deleteBeforeReplace: false,
                dependencies: req.getDependenciesList(),
                inputs: { ...(unwrapSecrets(rawInputs) as Record<string, unknown>), id: req.getId() },
                rawInputs,
            });
            outstanding--;
            cb(err, res);
        });
    };

    const main = loadProgram(root);
    const stackTraceLimit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    try {
        let outputs: unknown;
        let error: unknown;
        try {
            outputs = await resolve(main());
        } catch (e) {
            error = e;
        }
        // The SDK's own count of work in flight (registrations, late registerOutputs calls).
        await settings.waitForRPCs();
        // Registrations can start from applies; wait until none has been pending for a while.
        let idleTicks = 0;
        while (idleTicks < 5) {
            await new Promise((r) => setTimeout(r, 2));
            idleTicks = outstanding === 0 ? idleTicks + 1 : 0;
        }
        return { resources, outputs: outputs as Record<string, unknown>, error };
    } finally {
        Error.stackTraceLimit = stackTraceLimit;
    }
}

/**
 * The program's exported function. This repository's program stays in the module cache (the
 * unit tests run it hundreds of times). Any other root (another revision's worktree) is loaded
 * afresh: its modules are keyed by its own paths, so it never shares state with this one, and
 * purging first means a directory reused for a different revision never runs stale code.
 */
function loadProgram(root: string): () => unknown {
    const dir = fs.realpathSync(root);
    if (dir !== fs.realpathSync(ROOT)) forgetProgram(dir);
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require(path.join(dir, "index")) as () => unknown;
}

/**
 * Drops the program modules under `root` from the module cache. Dependencies are kept: a
 * worktree's node_modules links to this one's, and a second copy of @pulumi/pulumi would not
 * see the mocks.
 */
export function forgetProgram(root: string): void {
    const prefix = fs.realpathSync(root) + path.sep;
    for (const file of Object.keys(require.cache)) {
        if (file.startsWith(prefix) && !file.slice(prefix.length).split(path.sep).includes("node_modules")) {
            delete require.cache[file];
        }
    }
}

function resolve(value: unknown): Promise<unknown> {
    const output = pulumi.output(value as object) as pulumi.Output<unknown>;
    return new Promise((ok) => output.apply((v) => ok(v)));
}

/** Strips Pulumi's secret envelopes, keeping the plain values. */
export function unwrapSecrets(value: unknown): unknown {
    if (Array.isArray(value)) return value.map(unwrapSecrets);
    if (isPlain(value)) {
        if (value[SECRET_SIG] !== undefined && "value" in value) return unwrapSecrets(value.value);
        return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, unwrapSecrets(v)]));
    }
    return value;
}

/** True when the value at `pathParts` in the raw inputs is (inside) a secret envelope. */
export function isSecretAt(raw: unknown, pathParts: readonly (string | number)[]): boolean {
    let current: unknown = raw;
    for (const part of pathParts) {
        if (isPlain(current) && current[SECRET_SIG] !== undefined) return true;
        if (current === null || typeof current !== "object") return false;
        current = (current as Record<string | number, unknown>)[part];
    }
    return isPlain(current) && current[SECRET_SIG] !== undefined;
}

export const RELEASE_TYPE = "kubernetes:helm.sh/v3:Release";

export function releases(run: ProgramRun): RecordedResource[] {
    return run.resources.filter((r) => r.type === RELEASE_TYPE);
}

export function release(run: ProgramRun, name: string): RecordedResource {
    const found = releases(run).find((r) => r.inputs.name === name);
    if (!found) throw new Error(`no release ${name}; have ${releases(run).map((r) => r.inputs.name).join(", ")}`);
    return found;
}

export function valuesOf(run: ProgramRun, name: string): Record<string, any> {
    return release(run, name).inputs.values as Record<string, any>;
}
