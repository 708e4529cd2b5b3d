import type { Io } from "../lib/cli";
import { helmFacts, objectFacts, providerAccess, type Connect } from "./cluster";
import {
    backupDir,
    checkpointFile,
    fileBackendRoot,
    locateStack,
    readLocks,
    removeLock,
    repairAttrs,
    tornAttrs,
    unreadableCheckpoint,
    type FileBackend,
} from "./file-backend";
import { helmArgs, type HelmCli } from "./helm";
import { judgeLock, locksInMessage, type LockOwner, type Processes } from "./locks";
import { decide, type Decision, type Facts } from "./plan";
import { cliError } from "../lib/pulumi-errors";
import type { PulumiProject, PulumiStack } from "./pulumi";
import {
    applyEdits,
    kindOf,
    providerOf,
    resourceAt,
    reveal,
    stringInput,
    unreadResources,
    type Checkpoint,
    type PendingOperation,
    type StateEdit,
} from "./state";

export interface RecoverOptions {
    readonly stack: string;
    /** The program's directory (where Pulumi.yaml is). */
    readonly dir: string;
    /** Remove locks this command cannot prove stale. */
    readonly force: boolean;
    /** Print what it found and would do; change nothing. */
    readonly dryRun: boolean;
    /** Also uninstall a release that holds data whose first install never finished, when none of its volumes is bound. */
    readonly yes?: boolean;
}

export interface RecoverDeps {
    readonly project: (dir: string) => Promise<PulumiProject>;
    readonly connect: Connect;
    readonly helm: HelmCli;
    readonly processes: Processes;
    /** Release names whose data an uninstall would lose (the catalog's `holdsData`). */
    readonly dataReleases: ReadonlySet<string>;
    readonly now: () => Date;
}

/** Steps for the user, numbered; a group's steps are numbered under its heading. */
type Steps = readonly (string | { readonly heading: string; readonly steps: readonly string[] })[];

/** Recovery cannot go on without the user: the steps are printed, exit 1. */
class Stop extends Error {
    constructor(
        message: string,
        readonly steps: Steps,
    ) {
        super(message);
    }
}

function printSteps(steps: Steps, say: (t?: string) => void, indent = "  "): void {
    let n = 0;
    for (const step of steps) {
        if (typeof step === "string") say(`${indent}${++n}. ${step}`);
        else {
            say(`${indent}- ${step.heading}:`);
            printSteps(step.steps, say, `${indent}    `);
        }
    }
}

/** The default timeout of a Helm hook when the release names none. */
const HELM_TIMEOUT_SECONDS = 300;

/**
 * `npm run recover`: brings a stack an interrupted `pulumi up` or `destroy` left behind back to
 * a state the next run starts from. Each part first says what it found and what it will do,
 * then does it. Exit 0: consistent; 1: stopped, with the steps for the user; 2: could not start.
 */
export async function recover(options: RecoverOptions, deps: RecoverDeps, io: Io): Promise<number> {
    const say = (text = "") => io.out(`${text}\n`);
    let project: PulumiProject;
    try {
        project = await deps.project(options.dir);
    } catch (error) {
        io.err(`recover: cannot use the Pulumi project in ${options.dir}: ${cliError(error)}\n`);
        return 2;
    }
    const root = fileBackendRoot(project.backendUrl);
    const files = root ? locateStack(root, project.project, options.stack) : undefined;
    const checkpoint = files && checkpointFile(files);
    // A stack the backend does not have is all there is to say: nothing of its locks or files first.
    if (files && !checkpoint) {
        io.err(`recover: ${noSuchStack(options.stack, project)}\n`);
        return 2;
    }
    // Another backend is asked at once; a file backend after its files are repaired (the CLI cannot read a torn one).
    const selected = files ? undefined : await selectStack(project, options.stack, io);
    if (!files && !selected) return 2;
    say(
        `Stack ${options.stack} of project ${project.project}, backend ${redactUrl(project.backendUrl)}${options.dryRun ? " (dry run: nothing is changed)" : ""}.`,
    );
    try {
        if (files && checkpoint) {
            const readable = repairFiles(files, checkpoint, options, deps, say);
            if (!readable) {
                say("\nThe state's pending operations are listed once its files are repaired: run without --dry-run.");
                return 0;
            }
        } else {
            say("Locks: this backend's locks are not files here; a lock met below is judged from what the CLI reports.");
        }
        const stack = selected ?? (await selectStack(project, options.stack, io));
        if (!stack) return 2;
        const outcome = await recoverOperations(stack, files, options, deps, say);
        if (outcome.left.length > 0) {
            if (!outcome.unchanged) await verify(stack, files, new Set(outcome.left.map((l) => l.urn)), say);
            throw leftStop(outcome, options);
        }
        if (options.dryRun) return 0;
        await verify(stack, files, new Set(), say);
        say("\nDone: the next `pulumi up` (or `pulumi destroy`) starts from a consistent state.");
        return 0;
    } catch (error) {
        if (!(error instanceof Stop)) {
            // Only stderr: a failed CLI command's stdout may hold the state.
            io.err(`recover: ${cliError(error)}\n`);
            return 2;
        }
        say(`\nStopped: ${error.message}`);
        printSteps(error.steps, say);
        return 1;
    }
}

/** The stack through the CLI, or undefined once the CLI's reason is printed. */
async function selectStack(project: PulumiProject, stack: string, io: Io): Promise<PulumiStack | undefined> {
    try {
        return await project.select(stack);
    } catch (error) {
        io.err(`recover: cannot select the stack ${stack}: ${cliError(error)}\n`);
        return undefined;
    }
}

function noSuchStack(stack: string, project: PulumiProject): string {
    return (
        `the backend ${redactUrl(project.backendUrl)} has no stack ${stack} of project ${project.project}: ` +
        "check the stack's name and the backend you are logged in to (pulumi whoami -v; pulumi stack ls)"
    );
}

/** Locks, sidecars and the checkpoint of a local file backend. False when the state stays unreadable in a dry run. */
function repairFiles(
    files: FileBackend,
    checkpoint: string,
    options: RecoverOptions,
    deps: RecoverDeps,
    say: (t?: string) => void,
): boolean {
    const locks = readLocks(files).map((lock) => ({ lock, ...judgeLock(lock, deps.processes) }));
    say("\nLocks:");
    if (locks.length === 0) say("  - none");
    for (const l of locks) {
        const action = l.verdict === "stale" ? "will remove it" : options.force ? "will remove it (--force)" : "leaves it";
        say(`  - ${l.lock.where}: ${l.why}; ${action}`);
    }
    const held = locks.filter((l) => l.verdict !== "stale");
    if (held.length > 0 && !options.force)
        throw lockStop(
            held.map((l) => l.lock),
            options.stack,
        );

    const torn = tornAttrs(files);
    const backups = backupDir(files, deps.now());
    say("\nState files:");
    if (torn.length === 0) say("  - every sidecar (.attrs) is readable");
    for (const t of torn)
        say(`  - ${t.attrs} cannot be read (${t.problem}); will back it up to ${backups} and write it again from its file`);
    if (options.dryRun) return torn.length === 0;
    for (const t of torn) {
        repairAttrs(t, backups, files.root);
        say(`    done: ${t.attrs} repaired`);
    }
    for (const l of locks) {
        removeLock(l.lock);
        say(`    done: lock ${l.lock.where} removed`);
    }
    const unreadable = unreadableCheckpoint(checkpoint);
    if (unreadable) {
        throw new Stop(`the checkpoint ${checkpoint} itself cannot be read (${unreadable})`, [
            `Pulumi keeps the previous checkpoint beside it (${checkpoint}.bak) and older ones in ${files.root}/.pulumi/backups.`,
            `Check which one is readable and newest, then: pulumi stack import --stack ${options.stack} --file <it>.`,
            `Then npm run recover -- --stack ${options.stack} again.`,
        ]);
    }
    return true;
}

function leftStop(outcome: Outcome, options: RecoverOptions): Stop {
    const { left } = outcome;
    const ops = `${left.length} pending operation(s)`;
    const steps = left.map((l) => ({ heading: l.what, steps: l.steps }));
    if (options.dryRun) return new Stop(`${ops} would be left as they are (dry run: nothing was changed); for each:`, steps);
    if (outcome.unchanged) {
        const done =
            outcome.helmDone.length > 0
                ? `; Helm's steps were done (${outcome.helmDone.join(", ")}), and the next run finds them done`
                : "";
        return new Stop(
            `the stack's state was not changed: ${ops} must stay in it until this command can resolve them (writing the state drops every pending operation)${done}. First, for each:`,
            steps,
        );
    }
    return new Stop(
        `${ops} left as they were in the cluster, everything else is resolved; the next \`pulumi up\` can fail only on these. For each:`,
        steps,
    );
}

function lockStop(held: readonly LockOwner[], stack: string): Stop {
    return new Stop(`a run may still hold the stack (${held.map((l) => l.where).join(", ")}).`, [
        "If it runs: let it finish. To stop it, press Ctrl-C once in its terminal (or cancel its CI job) and wait for it to end; never kill it.",
        `If you know it is gone (its machine was lost, its CI runner is gone): npm run recover -- --stack ${stack} --force removes the lock.`,
    ]);
}

/** A pending operation recovery left as it was, with the user's steps. */
interface Left {
    readonly what: string;
    readonly urn: string;
    readonly why: string;
    readonly steps: readonly string[];
    /** Its pending operation must stay in the state: nothing of the state may be written meanwhile. */
    readonly keep: boolean;
}

/** What happened to the pending operations: those left, and whether the state was written. */
interface Outcome {
    readonly left: readonly Left[];
    /** The state was left unchanged because a kept operation must stay in it. */
    readonly unchanged: boolean;
    /** The Helm steps done before the state could not be written. */
    readonly helmDone: readonly string[];
}

/**
 * Resolves every pending operation it safely can, even when it must leave some (a release whose
 * volume is bound, one that is not this stack's): those stay as they are in the cluster, with the
 * user's steps, and the next `pulumi up` can fail only on them. The state is written with
 * `pulumi stack import`, which drops every pending operation: when one must stay (it waits for
 * --yes, for helm, for a cluster that cannot be reached, or names another provider's resource),
 * nothing of the state is changed.
 */
async function recoverOperations(
    stack: PulumiStack,
    files: FileBackend | undefined,
    options: RecoverOptions,
    deps: RecoverDeps,
    say: (t?: string) => void,
): Promise<Outcome> {
    const before = await stack.export();
    const state = before.deployment;
    const ops = state.pending_operations ?? [];
    const decisions: Decision[] = [];
    const kubes = new Map<string, ReturnType<Connect>>();
    const seen = new Set<string>();
    for (const op of ops) {
        const key = `${op.type} ${op.resource.urn}`;
        const repeated = seen.has(key);
        seen.add(key);
        const facts = repeated ? ({ kind: "none" } as const) : await factsFor(op, state, deps, kubes);
        decisions.push(
            decide({
                op,
                recorded: resourceAt(state, op.resource.urn),
                facts,
                dataReleases: deps.dataReleases,
                stack: options.stack,
                confirmed: options.yes,
                repeated,
            }),
        );
    }
    const unread = unreadResources(state);

    const left: Left[] = decisions
        .filter((d) => d.stop)
        .map((d) => ({
            what: d.what,
            urn: d.urn,
            why: d.confirm ? "waits for --yes" : "needs you",
            steps: d.stop ?? [],
            keep: d.keep === true,
        }));
    let helmSteps = decisions.filter((d) => d.helm && !d.stop);
    const noHelm = helmSteps.length > 0 && !options.dryRun && !(await deps.helm.version());
    if (noHelm) {
        for (const d of helmSteps) {
            left.push({
                what: d.what,
                urn: d.urn,
                why: "needs the helm CLI",
                keep: true,
                steps: [
                    `Install helm (https://helm.sh/docs/intro/install/) and run this command again, or run yourself, with the kubeconfig and context of the stack's kubernetes provider: helm ${helmArgs(d.helm!, timeoutOf(ops, d.urn)).join(" ")}; then this command again.`,
                ],
            });
        }
    }
    // Nothing is done while an operation must stay in the state: the others say what would be done.
    const blocked = left.some((l) => l.keep);

    say("\nPending operations:");
    if (decisions.length === 0 && unread.length === 0) say("  - none");
    for (const d of decisions)
        say(`  - ${d.what}: found ${d.found}; ${d.stop ? "this command" : blocked ? "once that is done, would" : "will"} ${d.will}`);
    for (const r of unread) say(`  - ${r.urn}: adopted by an earlier recovery that did not finish; will read it with its provider`);
    if (noHelm) {
        say(
            `  - there is no helm CLI (3.x) on PATH: the ${helmSteps.length} release(s) that need a rollback or an uninstall stay as they were`,
        );
        helmSteps = [];
    }
    const unchanged = { left, unchanged: true, helmDone: [] };
    if (options.dryRun) {
        say("\nDry run: nothing was changed.");
        return unchanged;
    }
    if (blocked) return unchanged;

    const failed = new Set<string>();
    const helmDone: string[] = [];
    for (const d of helmSteps) {
        const op = ops.find((o) => o.resource.urn === d.urn)!;
        const provider = providerOf(state, op.resource.provider)!;
        try {
            await deps.helm.run(d.helm!, providerAccess(provider), timeoutOf(ops, d.urn));
            say(`    done: helm ${d.helm!.kind} ${d.helm!.name} (${d.helm!.namespace})`);
            helmDone.push(`${d.helm!.kind} ${d.helm!.namespace}/${d.helm!.name}`);
        } catch (error) {
            failed.add(d.urn);
            say(`    not done: ${(error as Error).message}`);
            left.push({
                what: d.what,
                urn: d.urn,
                why: `helm ${d.helm!.kind} failed`,
                keep: true,
                steps: [
                    `Fix what Helm says (helm -n ${d.helm!.namespace} history ${d.helm!.name}), then npm run recover -- --stack ${options.stack} again.`,
                ],
            });
        }
    }
    // Each done Helm step is found done by the next run, which then clears its operation.
    if (failed.size > 0) return { left, unchanged: true, helmDone };
    const leftUrns = new Set(left.map((l) => l.urn));
    const acted = decisions.filter((d) => !leftUrns.has(d.urn));

    const edits = acted.map((d) => d.edit).filter((e): e is StateEdit => e !== undefined);
    let after: Checkpoint = state;
    // Other backends: the import also proves that no other run holds the stack.
    if (edits.length > 0 || !files) {
        const current = await stack.export();
        const now = (current.deployment.pending_operations ?? []).map((o) => o.resource.urn).sort();
        if (JSON.stringify(now) !== JSON.stringify(ops.map((o) => o.resource.urn).sort())) {
            const done = helmDone.length > 0 ? ` (Helm's steps were done: ${helmDone.join(", ")}; a rerun finds them done)` : "";
            throw new Stop(`the stack's pending operations changed while this command ran: another command is running on it${done}.`, [
                "Let it finish, then run this command again.",
            ]);
        }
        const edited = applyEdits(current, edits);
        await withLockHandling(() => stack.import(edited), stack, options, deps, say);
        after = edited.deployment;
        if (edits.length > 0) say(`    done: the stack's state updated (${edits.length} pending operation(s) resolved)`);
    }

    const recorded = new Set((after.resources ?? []).map((r) => r.urn));
    const targets = [...new Set([...acted.filter((d) => d.refresh).map((d) => d.urn), ...unread.map((r) => r.urn)])].filter((u) =>
        recorded.has(u),
    );
    if (targets.length > 0) {
        say(`    reading ${targets.length} resource(s) with their providers (pulumi refresh --target ...):`);
        await withLockHandling(
            () => stack.refresh(targets, (text) => text.split("\n").forEach((line) => line.trim() && say(`      | ${line}`))),
            stack,
            options,
            deps,
            say,
        );
    }
    if (decisions.length > 0) {
        say("\nWhat recover did:");
        if (acted.length === 0) say("  - nothing to the pending operations");
        for (const d of acted) say(`  - ${d.what}: ${did(d, recorded)}`);
        if (left.length > 0) {
            say("What it did not do:");
            for (const l of left) say(`  - ${l.what}: left it as it was in the cluster (${l.why})`);
        }
    }
    return { left, unchanged: false, helmDone };
}

/** What was done for a decision, in the past tense. */
function did(d: Decision, recorded: ReadonlySet<string>): string {
    const parts: string[] = [];
    if (d.helm) parts.push(d.helm.kind === "rollback" ? `rolled it back to revision ${d.helm.revision}` : "uninstalled it");
    if (d.edit?.kind === "clear") parts.push("cleared the pending operation");
    if (d.edit?.kind === "adopt") parts.push(`recorded it in the stack (id ${d.edit.id})`);
    if (d.edit?.kind === "record") parts.push("recorded the inputs it was upgraded with");
    if (d.refresh && recorded.has(d.urn)) parts.push("read it again with its provider");
    return parts.join(", ") || "nothing was needed";
}

function timeoutOf(ops: readonly PendingOperation[], urn: string): number {
    const timeout = reveal(ops.find((o) => o.resource.urn === urn)?.resource.inputs?.timeout);
    return typeof timeout === "number" && timeout > 0 ? timeout : HELM_TIMEOUT_SECONDS;
}

async function factsFor(
    op: PendingOperation,
    state: Checkpoint,
    deps: RecoverDeps,
    kubes: Map<string, ReturnType<Connect>>,
): Promise<Facts> {
    const kind = kindOf(op.resource.type);
    const needsCluster = kind === "helm-release" || (kind === "kubernetes-object" && op.type === "creating");
    if (!needsCluster || !["creating", "updating", "deleting"].includes(op.type)) return { kind: "none" };
    const provider = providerOf(state, op.resource.provider);
    if (!provider) return { kind: "unreachable", reason: "its kubernetes provider is not in the state" };
    try {
        if (!kubes.has(provider.urn)) kubes.set(provider.urn, deps.connect(providerAccess(provider)));
        const kube = await kubes.get(provider.urn)!;
        if (kind === "helm-release") {
            const helm = await helmFacts(kube, stringInput(op.resource, "namespace") ?? "default", stringInput(op.resource, "name") ?? "");
            return { kind: "helm", helm };
        }
        const meta = reveal(op.resource.inputs?.metadata) as { name?: string; namespace?: string } | undefined;
        const object = await objectFacts(
            kube,
            String(reveal(op.resource.inputs?.apiVersion) ?? ""),
            String(reveal(op.resource.inputs?.kind) ?? ""),
            meta?.namespace,
            meta?.name ?? "",
        );
        return { kind: "object", object };
    } catch (error) {
        return { kind: "unreachable", reason: (error as Error).message };
    }
}

/**
 * Runs a command that takes the stack's lock. When the CLI reports a lock (backends whose lock
 * files are not here, or a run that started meanwhile), the lock is judged as a file's would be:
 * a stale one, or any with --force, is cancelled (`pulumi cancel`) and the command run again.
 */
async function withLockHandling(
    command: () => Promise<void>,
    stack: PulumiStack,
    options: RecoverOptions,
    deps: RecoverDeps,
    say: (t?: string) => void,
): Promise<void> {
    try {
        await command();
        return;
    } catch (error) {
        const owners = locksInMessage(cliError(error));
        if (!owners)
            throw new Stop(`a Pulumi command failed: ${cliError(error)}`, [
                `Fix what it says, then npm run recover -- --stack ${options.stack} again.`,
            ]);
        const verdicts = owners.map((lock) => ({ lock, ...judgeLock(lock, deps.processes) }));
        say("\nLocks the CLI reports:");
        for (const v of verdicts) say(`  - lock ${v.lock.where}: ${v.why}`);
        const held = verdicts.filter((v) => v.verdict !== "stale");
        if (held.length > 0 && !options.force)
            throw lockStop(
                held.map((v) => v.lock),
                options.stack,
            );
        await stack.cancel();
        say(`    done: the lock(s) cancelled (pulumi cancel)`);
    }
    await command();
}

/**
 * The checkpoint has no pending operation but those left for the user, and nothing unread; a file
 * backend has no lock and no torn sidecar.
 */
async function verify(
    stack: PulumiStack,
    files: FileBackend | undefined,
    left: ReadonlySet<string>,
    say: (t?: string) => void,
): Promise<void> {
    const state = (await stack.export()).deployment;
    const problems: string[] = [];
    const pending = (state.pending_operations ?? []).filter((o) => !left.has(o.resource.urn));
    if (pending.length > 0) problems.push(`pending operations remain: ${pending.map((o) => o.resource.urn).join(", ")}`);
    const unread = unreadResources(state);
    if (unread.length > 0) problems.push(`resources were not read by their providers: ${unread.map((r) => r.urn).join(", ")}`);
    if (files) {
        const locks = readLocks(files);
        if (locks.length > 0) problems.push(`locks remain: ${locks.map((l) => l.where).join(", ")}`);
        const torn = tornAttrs(files);
        if (torn.length > 0) problems.push(`sidecars still torn: ${torn.map((t) => t.attrs).join(", ")}`);
    }
    if (problems.length > 0)
        throw new Stop(`the stack is still not consistent: ${problems.join("; ")}`, [
            "Run this command again; if it says the same, report it with its output.",
        ]);
    say(`\nChecked: no pending operation${left.size > 0 ? " but those left" : ""}, no lock, every resource read by its provider.`);
}

/** A backend URL without credentials (an S3 or Postgres URL may carry them). */
function redactUrl(url: string): string {
    return url.replace(/\/\/[^/@]*@/, "//***@");
}
