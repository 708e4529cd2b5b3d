import type { OperatorStack } from "../../lib/contracts/pulumi-operator";
import { lockOwnerText, type LockOwner } from "../recover/locks";
import type { LockReport } from "./locks";
import { stackState } from "./state";

/** One environment as the command found it: its Stack (undefined: not in the cluster) and its lock. */
export interface EnvironmentStatus {
    readonly name: string;
    readonly namespace: string;
    readonly stack: OperatorStack | undefined;
    readonly lock: LockReport;
}

function holder(lock: LockOwner): string {
    if (lock.unreadable !== undefined) return `${lock.where}: ${lock.unreadable}`;
    return `${lockOwnerText(lock)}: ${lock.where}`;
}

/**
 * The report, pure: a block per environment (name, state, commit, time, message, lock), then
 * how to clear a lock when one is reported.
 */
export function fleetStatusLines(environments: readonly EnvironmentStatus[]): string[] {
    const lines: string[] = [];
    let held = false;
    for (const env of environments) {
        if (env.stack === undefined) {
            lines.push(`${env.name}  no Stack ${env.namespace}/${env.name} in the cluster (not created yet: \`pulumi up\` in fleet/)`);
            continue;
        }
        const s = stackState(env.stack);
        lines.push(`${env.name}  ${s.state}`);
        lines.push(`  commit   ${s.commit ?? "-"}`);
        lines.push(`  time     ${s.time ?? "-"}`);
        if (s.message !== undefined) lines.push(`  message  ${s.message}`);
        if (!env.lock.reported) lines.push("  lock     none reported");
        else {
            held = true;
            for (const lock of env.lock.locks) lines.push(`  lock     held by ${holder(lock)}`);
        }
    }
    if (held) {
        lines.push(
            "",
            "A lock was reported by a failed update. Before clearing it, make sure no update holds it: the Stack has no",
            "status.currentUpdate (kubectl get stack <name> -n <namespace> -o jsonpath='{.status.currentUpdate}'),",
            "and the workspace pod <name>-workspace-0 runs no `pulumi` process (nor the host the lock names); then",
            "`pulumi cancel --yes --stack <stack>` against the backend (it deletes every lock of the stack), or delete",
            "the file named above; then `npm run recover -- --stack <stack> --dry-run` (docs/fleets.md, A stuck lock).",
        );
    }
    return lines;
}

/** Exit code: 1 when an environment failed, stalled, or has no Stack; else 0. */
export function fleetExitCode(environments: readonly EnvironmentStatus[]): 0 | 1 {
    return environments.some((e) => e.stack === undefined || stackState(e.stack).bad) ? 1 : 0;
}
