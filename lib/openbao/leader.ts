import type { Kube } from "../kubernetes/client";
import { openBaoMembers, tokenSourceOf, type OpenBaoReach } from "./access";
import { MemberAnswerError, type MemberHealth, type OpenBaoMembers } from "./members";
import { readMemberPods, readStatefulSet } from "./statefulset";

/** Which of OpenBao's members leads. */

/** OpenBao's StatefulSet: its members are the pods `<statefulSet>-<ordinal>`. */
export interface RolloutTarget {
    readonly namespace: string;
    readonly statefulSet: string;
}

/** An answer that is there, or the reason it is not yet. */
export type Look<T> = { readonly ok: T } | { readonly notYet: string };

/** One member's health and whether it leads; an unanswered call or a sealed member is "not yet". */
export async function memberLook(members: OpenBaoMembers, name: string): Promise<Look<{ health: MemberHealth; isSelf: boolean }>> {
    try {
        const health = await members.health(name);
        if (!health.initialized) return { notYet: `${name} is not initialised` };
        if (health.sealed) return { notYet: `${name} is sealed` };
        const leader = await members.leader(name);
        return { ok: { health, isSelf: leader.isSelf } };
    } catch (err) {
        if (err instanceof MemberAnswerError && !err.refused) return { notYet: err.message };
        throw err;
    }
}

/** The member that says it leads (`sys/leader` `is_self`), or undefined (no StatefulSet, no pod, no leader). */
export async function leaderOf(kube: Kube, members: OpenBaoMembers, target: RolloutTarget): Promise<string | undefined> {
    const sts = await readStatefulSet(kube, target.namespace, target.statefulSet);
    if (!sts) return undefined;
    for (const pod of await readMemberPods(kube, sts)) {
        if (!pod?.ready) continue;
        const look = await memberLook(members, pod.name);
        if ("ok" in look && look.ok.isSelf) return pod.name;
    }
    return undefined;
}

/**
 * The members and the one that leads, for a provider that writes (writes go to the active
 * member; a standby would only forward them, the chart sets disable_standby_reads); `what` starts the message when
 * none leads, which says nothing was written.
 */
export async function activeMember(
    kube: Kube,
    reach: OpenBaoReach,
    token: string | undefined,
    what: string,
): Promise<{ members: OpenBaoMembers; leader: string }> {
    const members = openBaoMembers(kube, reach, tokenSourceOf(reach, token));
    const leader = await leaderOf(kube, members, { namespace: reach.namespace, statefulSet: reach.statefulSet });
    if (!leader) {
        throw new Error(
            `${what}: no ${reach.statefulSet} member says it leads, so nothing was written ` +
                `(kubectl -n ${reach.namespace} get pods; kubectl -n ${reach.namespace} exec ${reach.statefulSet}-0 -c openbao -- bao status); run pulumi up again once one does`,
        );
    }
    return { members, leader };
}
