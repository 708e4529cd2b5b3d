/**
 * The mock engine: runs the real program (`<root>/index.ts`) under Pulumi's mocks with a given
 * stack config and records every registration as the engine would see it. The render,
 * plan-diff, the bench and the tests all run the program through here.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import { mockCall, mockState } from "./mock-providers";
import { REPO_ROOT } from "./repo";
import { unwrapSecrets } from "./secret-envelope";
import { runWithMonitor, type MonitorHooks } from "./recording-monitor";
import { withoutSourceMaps } from "./source-maps";
import { projectName, type StackConfig } from "./stack-config";

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

/**
 * Runs the real program (`<root>/index.ts`, this repository's by default) under Pulumi's mocks
 * with the given stack config and records every registration. Throws what the program throws
 * (bad config).
 */
export async function runProgram(
    config: StackConfig,
    secretKeys: string[] = [],
    stack = "test",
    root: string = REPO_ROOT,
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
    const { resources, error } = await execute(config, secretKeys, "test", REPO_ROOT);
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

function execute(config: StackConfig, secretKeys: string[], stack: string, root: string): Promise<ProgramRun & { error?: unknown }> {
    const key = root === REPO_ROOT ? runKey(config, secretKeys, stack) : undefined;
    const cached = key === undefined ? undefined : runs.get(key);
    if (cached) return cached;
    const run = running.then(() => withoutSourceMaps(() => executeAlone(config, secretKeys, stack, root)));
    running = run.catch(() => undefined);
    if (key !== undefined) runs.set(key, run);
    return run;
}

/**
 * What identifies a run. A stack's config is a map to Pulumi (the engine hands it over without
 * order), so the top-level keys are sorted: `{ a, b }` and `{ b, a }` are one run. Values keep
 * their order, as the program sees it in each value's JSON.
 */
export function runKey(config: StackConfig, secretKeys: readonly string[], stack: string): string {
    const sorted = Object.keys(config)
        .filter((k) => config[k] !== undefined)
        .sort()
        .map((k) => [k, config[k]]);
    return JSON.stringify([sorted, [...new Set(secretKeys)].sort(), stack]);
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

    const resources: RecordedResource[] = [];
    const hooks: MonitorHooks = {
        registered(req, urn) {
            const rawInputs = req.getObject()?.toJavaScript() ?? {};
            resources.push({
                type: req.getType(),
                name: req.getName(),
                urn,
                parent: req.getParent(),
                provider: req.getProvider(),
                custom: req.getCustom(),
                retainOnDelete: req.getRetainondelete() ?? false,
                deleteBeforeReplace: req.getDeletebeforereplace(),
                dependencies: req.getDependenciesList(),
                inputs: unwrapSecrets(rawInputs) as Record<string, unknown>,
                rawInputs,
            });
        },
        // Reads of existing objects (`get`, or an `id` option) go through ReadResource instead.
        read(req, urn) {
            const rawInputs = req.getProperties()?.toJavaScript() ?? {};
            resources.push({
                type: req.getType(),
                name: req.getName(),
                urn,
                parent: req.getParent(),
                provider: req.getProvider(),
                custom: true,
                retainOnDelete: false,
                deleteBeforeReplace: false,
                dependencies: req.getDependenciesList(),
                inputs: { ...(unwrapSecrets(rawInputs) as Record<string, unknown>), id: req.getId() },
                rawInputs,
            });
        },
    };
    const mocks: pulumi.runtime.Mocks = {
        newResource: (args) => ({ id: `${args.name}-id`, state: mockState(args.type, args.inputs) }),
        call: (args) => mockCall(args.token, args.inputs),
    };
    try {
        // Loaded inside the run, as the language host loads a program inside its stack.
        const program = () => loadProgram(root)();
        const outputs = await runWithMonitor({ project: projectName(root), stack, organization: "organization", mocks, hooks }, program);
        return { resources, outputs };
    } catch (error) {
        return { resources, outputs: {}, error };
    }
}

/**
 * The program's exported function. This repository's program stays in the module cache (the unit
 * tests run it hundreds of times). Any other root (another revision's worktree) is loaded
 * afresh: its modules are keyed by its own paths, so it never shares state with this one, and
 * purging first means a directory reused for a different revision never runs stale code.
 */
function loadProgram(root: string): () => unknown {
    const dir = fs.realpathSync(root);
    if (dir !== fs.realpathSync(REPO_ROOT)) forgetProgram(dir);
    const entry = require.resolve(path.join(dir, "index"));
    // Loaded by path at run time, as Pulumi's language host loads a program.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require(entry) as () => unknown;
}

/**
 * Drops the program modules under `root` from the module cache. Dependencies are kept: a
 * worktree's node_modules links to this one's, and a second copy of @pulumi/pulumi would not
 * see the mocks.
 */
function forgetProgram(root: string): void {
    const prefix = fs.realpathSync(root) + path.sep;
    for (const file of Object.keys(require.cache)) {
        if (file.startsWith(prefix) && !file.slice(prefix.length).split(path.sep).includes("node_modules")) {
            delete require.cache[file];
        }
    }
}
