/**
 * `npm run upgrade --plan`: every stage with what it does, its targeted preview and its checks.
 * Nothing changes and no progress is written.
 */
import type { BundleRelease } from "../../components/bundle/bundle-releases";
import type { UpgradeDeps, UpgradeOptions } from "./options";
import { describeStep, needsDrain, stageNumber, STAGES, type StageId, type StagePlan } from "./stages";

/** What each stage checks after its update, in a line. */
export const CHECKS: Record<StageId, string> = {
    preflight: "every cluster answers; every Helm release in the stack's namespaces is deployed (no failed or pending-*)",
    "compute-planes":
        "each GPU cluster's releases at the new versions and deployed, its NVCFBackend healthy, its operator and agent pods Ready",
    drain: "each NATS pod's /jsz (all pages): every single-replica memory stream present and empty; each function queue given empty",
    openbao:
        "every member unsealed, one active, the cluster ID captured before the stage, updatedReplicas equal to replicas; the JWT mounts against their baseline (the OpenBao rollout's)",
    dependencies: "the 01 releases at the new versions and deployed, their workloads ready, every Job (the migrations) succeeded",
    core: "the 02 releases at the new versions and deployed, their workloads ready, every HTTPRoute Accepted",
    observability: "the 00 and 03 releases at the new versions and deployed, their workloads ready",
    receipt: "the receipt names the bundle release and each release's chart version as Helm records it",
    "final-preview": "a whole-stack preview shows no change",
};

/** ` (the runbook's "<step>")` after a stage's title, when the runbook has that step. */
export const runbookStep = (stage: (typeof STAGES)[number]) => (stage.runbook ? ` (the runbook's "${stage.runbook}")` : "");

/** `--plan`: each stage, its targeted preview and its checks; nothing changes and no progress is written. */
export async function printPlan(
    options: UpgradeOptions,
    deps: UpgradeDeps,
    plan: Map<StageId, StagePlan>,
    installed: BundleRelease,
    target: BundleRelease,
    say: (line?: string) => void,
): Promise<number> {
    say(`Plan of the upgrade from bundle release ${installed.release} to ${target.release} (nothing is changed):`);
    for (const stage of STAGES) {
        say(`\n== stage ${stageNumber(stage.id)}/${STAGES.length}: ${stage.title}${runbookStep(stage)}`);
        say(`   does: ${stage.does}.`);
        const p = plan.get(stage.id);
        if (stage.id === "drain")
            say(
                `   ${needsDrain(plan) ? "runs: the upgrade restarts NATS, the gRPC proxy or the invocation service" : "skipped: nothing restarts NATS, the gRPC proxy or the invocation service"}.`,
            );
        if (p) {
            say(`   targeted preview (${p.urns.length} resource${p.urns.length === 1 ? "" : "s"}):`);
            for (const step of await deps.engine.preview(p.urns)) say(`     ${describeStep(step)}`);
        } else if (!["preflight", "drain", "final-preview"].includes(stage.id)) {
            say("   no change.");
        }
        say(`   checks: ${CHECKS[stage.id]}.`);
    }
    say(`\nRun it with npm run upgrade -- --stack ${options.stack}.`);
    return 0;
}
