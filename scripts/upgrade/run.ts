/**
 * `npm run upgrade`: the runbook's stages in order, each a targeted update of the stack followed
 * by its checks, with the progress kept in the cluster so that a rerun resumes at the stage that
 * failed. Every stage says what it does, a line while it waits, and on failure what failed and
 * the command to look closer.
 */
import { setTimeout as sleepFor } from "node:timers/promises";
import { compareVersions, findBundleRelease, selectedBundleRelease, type BundleRelease } from "../../components/bundle/bundle-releases";
import { RECEIPT } from "../../components/bundle/receipt";
import { readReceipt } from "../../components/bundle/installed";
import { failed, kubernetesVersion, type CheckResult } from "../../lib/health/checks";
import { LOCKED_STACK } from "../recover/locks";
import { computePlaneChecks, phaseChecks, receiptMatches, releasesDeployed } from "./checks";
import { printPlan, runbookStep } from "./plan-report";
import { engineErrors } from "./engine";
import { functionQueuesEmpty } from "./function-queues";
import { natsDrained } from "./nats-drain";
import { openBaoClusterId, openBaoMembersChecked } from "./openbao";
import type { UpgradeDeps, UpgradeOptions } from "./options";
import { PROGRESS, resumeAt, withStage, type Progress } from "./progress";
import { describeStep, needsDrain, planStages, stageNumber, stageOf, STAGES, type StageId, type StagePlan } from "./stages";

export type { UpgradeDeps, UpgradeOptions } from "./options";

/** What the runbook says of going back (its rollback boundary), for a refused downgrade. */
export const ROLLBACK_BOUNDARY = [
    "NVIDIA's runbook has no downgrade: on a failed upgrade you stop and follow a reviewed recovery plan, and never apply an old bundle unchanged.",
    "- keep the patched NVCA on the GPU clusters, the target Tasks settings and the corrected hostname policy;",
    "- an older core stage may only be re-applied without ingress and nvct-api (old Tasks settings bring back unpublished worker images);",
    "- keep OpenBao's bridge image and both JWT plugins: new mounts may use commands the old images lack, and plugin rollback belongs to the plugin migration procedure;",
    "- restoring application releases neither validates an OpenBao server or agent downgrade nor reverses stored data: use OpenBao's recovery boundary and your datastore recovery plan for restores;",
    "- afterwards, verify the original identities, the existing workloads and the durable data (and launch a new task if you run tasks).",
].join("\n");

/** Ctrl-C stops the upgrade at the next step it takes. */
function interrupted(signal: AbortSignal | undefined): void {
    if (signal?.aborted) throw new Error("interrupted (Ctrl-C)");
}

class StageFailure extends Error {
    constructor(readonly results: CheckResult[]) {
        super(
            results
                .filter(failed)
                .map((r) => `${r.name}: ${r.detail}`)
                .join("; "),
        );
    }
}

/** Runs the upgrade (or prints its plan); the exit code: 0 done, 1 a stage failed (rerun resumes), 2 refused or unusable. */
export async function runUpgrade(options: UpgradeOptions, deps: UpgradeDeps): Promise<number> {
    const say = (line = "") => deps.out(`${line}\n`);
    const now = deps.now ?? (() => new Date());
    const sleep = deps.sleep ?? ((ms: number) => sleepFor(ms, undefined, { signal: deps.signal }).catch(() => undefined));
    const { engine } = deps;
    const planeNames = deps.clusters.planes.map((p) => p.name);
    const rerun = `npm run upgrade -- --stack ${options.stack}`;

    // Which release is installed, and which the stack now selects.
    const target = selectedBundleRelease(deps.settings.bundle.release, deps.releases);
    const receipt = await readReceipt(deps.clusters.control.kube);
    if (receipt && options.from && receipt.bundleRelease !== options.from) {
        say(
            `upgrade: the receipt ${RECEIPT.namespace}/${RECEIPT.name} says bundle release ${receipt.bundleRelease} is installed; --from ${options.from} contradicts it.`,
        );
        return 2;
    }
    let progress = await deps.progress.read();
    // An unfinished upgrade knows where it started: its receipt stage may have been interrupted between removing the old receipt and writing the new one.
    const unfinished = progress && !progress.completedAt ? progress : undefined;
    const installedName = receipt?.bundleRelease ?? options.from ?? unfinished?.from;
    if (!installedName) {
        say(
            `upgrade: which bundle release this environment runs is unknown: it has no receipt (ConfigMap ${RECEIPT.namespace}/${RECEIPT.name}), ` +
                `which an install or upgrade with this program writes. Pass the release it runs: --from <release> (known: ${deps.releases.map((r) => r.release).join(", ")}).`,
        );
        return 2;
    }
    const installed = findBundleRelease(installedName, deps.releases);
    if (!installed) {
        say(
            `upgrade: the environment runs bundle release ${installedName}, which this checkout of the program does not know ` +
                `(it knows ${deps.releases.map((r) => r.release).join(", ")}); use a checkout that does.`,
        );
        return 2;
    }
    if (compareVersions(target.release, installed.release) < 0) {
        say(`upgrade: refused: the stack selects bundle release ${target.release}, older than the installed ${installed.release}.`);
        say(ROLLBACK_BOUNDARY);
        say(
            `To stay on ${installed.release}, set nvcf-self-managed:bundle.release to ${installed.release} in Pulumi.${options.stack}.yaml.`,
        );
        return 2;
    }

    // An unfinished upgrade to another release is not mixed with this one (after its receipt stage the receipt names its target).
    if (progress && !progress.completedAt && progress.to !== target.release) {
        if (!options.restart) {
            const failed = STAGES.find((s) => progress!.stages[s.id]?.state === "failed");
            say(
                `upgrade: an upgrade from ${progress.from} to ${progress.to} is in progress` +
                    `${failed ? ` (stage ${stageNumber(failed.id)}, ${failed.title}, failed at ${progress.stages[failed.id]!.at})` : ""}, ` +
                    `and the stack now selects ${target.release}. ` +
                    `Select ${progress.to} again (nvcf-self-managed:bundle.release) to finish it, or pass --restart to start over ` +
                    `(kubectl -n ${PROGRESS.namespace} get configmap ${PROGRESS.name} -o yaml shows the record).`,
            );
            return 2;
        }
    }
    const fresh = !progress || progress.completedAt !== undefined || options.restart || progress.to !== target.release;
    if (fresh) progress = { from: installed.release, to: target.release, startedAt: now().toISOString(), stages: {} };

    say(`Stack ${options.stack}: bundle release ${installed.release} installed, ${target.release} selected.`);
    say(`Planning: a preview of the whole stack ...`);
    const plan = planStages(await engine.preview(), planeNames);
    if (options.plan) return printPlan(options, deps, plan, installed, target, say);
    if (fresh && installed.release === target.release && plan.size === 0) {
        say(`Nothing to upgrade: the environment runs bundle release ${target.release}, and the preview shows no change.`);
        return 0;
    }

    const resumed = !fresh ? resumeAt(progress) : undefined;
    if (resumed && resumed !== "preflight")
        say(`Resuming the upgrade to ${target.release} at stage ${stageNumber(resumed)} (${STAGES[stageNumber(resumed) - 1].title}).`);

    let attempted = false;
    const ctx: StageContext = {
        options,
        deps,
        say,
        sleep,
        now,
        target,
        planes: planeNames,
        attempted: () => attempted,
        progress: () => progress!,
        save: async (p) => {
            progress = p;
            await deps.progress.write(p);
        },
        plan: () => plan,
    };
    for (const stage of STAGES) {
        const n = `${stageNumber(stage.id)}/${STAGES.length}`;
        const record = progress!.stages[stage.id];
        if (record?.state === "passed") {
            say(`== stage ${n}: ${stage.title}: passed at ${record.at}; not repeated.`);
            continue;
        }
        if (deps.signal?.aborted) {
            say(`Interrupted before stage ${n}, ${stage.title}; run ${rerun} again to resume there.`);
            return 130;
        }
        say(`== stage ${n}: ${stage.title}${runbookStep(stage)}`);
        say(`   ${stage.does}.`);
        if (record) say(`   (${record.state === "failed" ? "failed" : "interrupted"} at ${record.at}; done again from its start)`);
        attempted = record !== undefined;
        progress = withStage(progress!, stage.id, { state: "running", at: now().toISOString() });
        await deps.progress.write(progress);
        try {
            const note = await runStage(stage.id, ctx);
            progress = withStage(progress!, stage.id, { state: "passed", at: now().toISOString(), ...(note ? { detail: note } : {}) });
            await deps.progress.write(progress);
            say(`   passed${note ? `: ${note}` : ""}.`);
        } catch (error) {
            const results = error instanceof StageFailure ? error.results.filter(failed) : [];
            const detail = results.length > 0 ? results.map((r) => `${r.name}: ${r.detail}`).join("\n") : engineErrors(error);
            progress = withStage(progress!, stage.id, { state: "failed", at: now().toISOString(), detail });
            await deps.progress
                .write(progress)
                .catch((e: unknown) => say(`   (the progress could not be recorded: ${(e as Error).message})`));
            say(`   FAILED: stage ${n}, ${stage.title}:`);
            if (results.length > 0) for (const r of results) say(`   - ${r.name}: ${r.detail}\n     Fix: ${r.fix}`);
            else say(detail.replace(/^/gm, "   "));
            if (results.length === 0 && INTERRUPTED_RUN.some((signature) => signature.test(detail))) {
                say(
                    `   This is what a killed run leaves behind (a stale lock, a Helm release the stack does not record, an empty checkpoint file): run npm run recover -- --stack ${options.stack} first.`,
                );
            }
            say(`   Nothing after this stage was changed. Once it is fixed, run ${rerun}: it resumes at stage ${n}.`);
            return 1;
        }
    }
    progress = { ...progress!, completedAt: now().toISOString() };
    await deps.progress.write(progress);
    say(
        `Done: the environment runs bundle release ${target.release} (receipt ${RECEIPT.namespace}/${RECEIPT.name}). Resume workloads: invoke a known function with its known request (the runbook's step 6).`,
    );
    return 0;
}

interface StageContext {
    readonly options: UpgradeOptions;
    readonly deps: UpgradeDeps;
    readonly say: (line?: string) => void;
    readonly sleep: (ms: number) => Promise<void>;
    readonly now: () => Date;
    readonly target: BundleRelease;
    /** The GPU clusters' names. */
    readonly planes: readonly string[];
    /** This stage ran before and did not pass: its checks run even when nothing is left to change. */
    attempted(): boolean;
    progress(): Progress;
    save(p: Progress): Promise<void>;
    plan(): Map<StageId, StagePlan>;
}

/** The engine's errors after a killed `pulumi up` or upgrade, each of which `npm run recover` clears. */
const INTERRUPTED_RUN = [LOCKED_STACK, /cannot re-use a name that is still in use/, /failed to load checkpoint/];

/** One stage's work; returns a note for the record, throws StageFailure (or the engine's error) on failure. */
async function runStage(id: StageId, ctx: StageContext): Promise<string | undefined> {
    const { deps, say } = ctx;
    const { clusters } = deps;
    const control = clusters.control;
    switch (id) {
        case "preflight": {
            const results: CheckResult[] = [];
            for (const c of [control, ...clusters.planes]) {
                const version = await kubernetesVersion(c.kube);
                results.push({ ...version, name: `${c.target.cluster}: ${version.name}` });
                if (version.ok) results.push(await releasesDeployed(c));
            }
            report(say, results);
            if (results.some(failed)) throw new StageFailure(results);
            return undefined;
        }
        case "compute-planes":
            return updateThenCheck(ctx, "compute-planes", () => computePlaneChecks(clusters.planes));
        case "drain": {
            if (!needsDrain(ctx.plan())) {
                say("   nothing in this upgrade restarts NATS, the gRPC proxy or the invocation service: no drain needed.");
                return "no drain needed";
            }
            const { queueAccess, queues } = ctx.options;
            await waitFor(ctx, async () => [
                await natsDrained(control.kube),
                ...(queueAccess && queues.length > 0 ? [await functionQueuesEmpty(queueAccess, queues)] : []),
            ]);
            if (queues.length === 0)
                say("   function queues: none given (--queue <function>[:<version>] with NVCF_API_KEY checks them too).");
            return undefined;
        }
        case "openbao":
            return openbaoStage(ctx);
        case "dependencies":
            return updateThenCheck(ctx, "dependencies", () => phaseChecks(control, ["dependencies"], { jobs: true }));
        case "core":
            return updateThenCheck(ctx, "core", () => phaseChecks(control, ["core"], { routes: true }));
        case "observability":
            return updateThenCheck(ctx, "observability", () => phaseChecks(control, ["observability-infrastructure", "observability"]));
        case "receipt":
            return updateThenCheck(ctx, "receipt", () => receiptMatches(clusters, ctx.target.release), { checkWithoutChange: true });
        case "final-preview": {
            const left = (await deps.engine.preview()).filter((s) => stageOf(s, ctx.planes) !== undefined);
            if (left.length === 0) {
                say("   the preview shows no change.");
                return undefined;
            }
            throw new StageFailure([
                {
                    name: "final-preview",
                    ok: false,
                    detail: `the preview still shows ${left.length} change${left.length === 1 ? "" : "s"}: ${left.map(describeStep).join(", ")}`,
                    fix: `pulumi preview --diff -s ${ctx.options.stack} shows them; a setting changed during the upgrade, or a resource drifted`,
                },
            ]);
        }
    }
}

/** A stage's targeted update (when the plan gives it changes), then its checks until they pass or time runs out. */
async function updateThenCheck(
    ctx: StageContext,
    id: StageId,
    checks: () => Promise<CheckResult[]>,
    options: { checkWithoutChange?: boolean } = {},
): Promise<string | undefined> {
    const targets = ctx.plan().get(id);
    if (!targets || targets.urns.length === 0) {
        if (!options.checkWithoutChange && !ctx.attempted()) {
            ctx.say("   nothing to change in this stage.");
            return "no change";
        }
    } else {
        ctx.say(`   updating ${targets.urns.length} resource${targets.urns.length === 1 ? "" : "s"} (a targeted pulumi up):`);
        await ctx.deps.engine.up(targets.urns, (line) => ctx.say(`     ${line}`));
    }
    await waitFor(ctx, checks);
    return undefined;
}

/** Polls the checks until every one passes, with a line while it waits; throws StageFailure at the timeout. */
async function waitFor(ctx: StageContext, checks: () => Promise<CheckResult[]>): Promise<void> {
    const { timeoutSeconds, pollSeconds } = ctx.options;
    const started = ctx.now().getTime();
    let last = "";
    let lastSaid = 0;
    for (;;) {
        interrupted(ctx.deps.signal);
        const results = await checks();
        const failing = results.filter(failed);
        if (failing.length === 0) {
            report(ctx.say, results);
            return;
        }
        const elapsed = Math.round((ctx.now().getTime() - started) / 1000);
        if (elapsed >= timeoutSeconds) throw new StageFailure(results);
        const line = `${failing[0].name}: ${failing[0].detail}${failing.length > 1 ? ` (and ${failing.length - 1} more)` : ""}`;
        if (line !== last || elapsed - lastSaid >= 30) {
            ctx.say(`   waiting (${elapsed} s of ${timeoutSeconds} s): ${line}`);
            last = line;
            lastSaid = elapsed;
        }
        await ctx.sleep(pollSeconds * 1000);
    }
}

function report(say: (line?: string) => void, results: readonly CheckResult[]): void {
    for (const r of results) say(`   ${r.ok ? "ok  " : r.inconclusive ? "??  " : "FAIL"} ${r.name}: ${r.detail}`);
}

/**
 * The runbook's OpenBao stage: capture the member's cluster ID once (kept with the progress),
 * update OpenBao alone (its release, the rollout with its JWT mount checks, the grant
 * revocation), then check the members. The runbook's bridge and versioned modes are not switched:
 * no chart or migration of the pinned bundle reads `openbao.jwtPluginLifecycle.mode`.
 */
async function openbaoStage(ctx: StageContext): Promise<string | undefined> {
    const { deps, say } = ctx;
    const control = deps.clusters.control;
    if (!ctx.plan().get("openbao") && !ctx.attempted()) {
        say("   nothing of OpenBao changes in this upgrade.");
        return "no change";
    }
    let baseline = ctx.progress().openbaoBaseline as { clusterId?: string } | undefined;
    if (!baseline) {
        baseline = { clusterId: await openBaoClusterId(control.kube, deps.settings) };
        await ctx.save({ ...ctx.progress(), openbaoBaseline: baseline });
        say(`   baseline captured (kept for every retry): cluster ID ${baseline.clusterId ?? "unknown (no unsealed member answered)"}.`);
    } else {
        say(`   baseline kept from the first attempt: cluster ID ${baseline.clusterId ?? "unknown"}.`);
    }
    const checks = () => openBaoMembersChecked(control.kube, deps.settings, baseline.clusterId);
    const urns = ctx.plan().get("openbao")?.urns ?? [];
    if (urns.length > 0) {
        say(`   updating OpenBao alone (${urns.length} resource${urns.length === 1 ? "" : "s"}), NATS left running:`);
        await deps.engine.up(urns, (line) => say(`     ${line}`));
    }
    await waitFor(ctx, checks);
    return undefined;
}
