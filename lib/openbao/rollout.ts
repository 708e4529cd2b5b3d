import type { Kube } from "../kubernetes/client";
import { MemberAnswerError, type MemberHealth, type OpenBaoMembers } from "./members";
import { deleteMemberPod, readMemberPods, readStatefulSet, stalePods, type MemberPod, type StatefulSetState } from "./statefulset";
import { memberLook, type Look, type RolloutTarget } from "./leader";

export interface RolloutOptions {
    /** How long each wait may take: the controller taking in the template, a member's replacement, a new leader. */
    readonly memberTimeoutMs: number;
    readonly pollMs: number;
    /** The cluster ID an earlier run saw: a member reporting another one stops the rollout. */
    readonly expectedClusterId?: string;
    /** One line per step. */
    readonly log?: (line: string) => void;
    /** The command that goes on after a stop, for the messages; default `pulumi up`. */
    readonly rerun?: string;
}

export interface RolloutReport {
    /** The StatefulSet's update revision: every member runs it at the end. */
    readonly revision?: string;
    /** The members replaced by this run, in order. */
    readonly replaced: string[];
    /** The leaders asked to step down before their replacement. */
    readonly steppedDown: string[];
    /** OpenBao's cluster ID, the same on every member before, during and after. */
    readonly clusterId?: string;
    /** Why nothing was replaced, when nothing was. */
    readonly nothingToDo?: string;
}

/** Which members run another template than the StatefulSet's current one (what `pulumi refresh` reports). */
export interface MemberRevisions {
    readonly revision?: string;
    readonly replicas: number;
    readonly updatedReplicas: number;
    readonly updateStrategy: string;
    /** The controller has taken in the current template (until then, `revision` may be the previous one's). */
    readonly settled: boolean;
    /** Members whose pod was made from another revision, by name. */
    readonly stale: string[];
}

/**
 * The StatefulSet's members and their revisions; undefined when there is no StatefulSet. With
 * `settle`, it first waits (as the rollout does) for the controller to take in the template.
 */
export async function memberRevisions(kube: Kube, target: RolloutTarget, settle?: RolloutOptions): Promise<MemberRevisions | undefined> {
    const found = await readStatefulSet(kube, target.namespace, target.statefulSet);
    if (!found) return undefined;
    const sts = settle && found.updateStrategy === "OnDelete" ? await settled(kube, target, settle) : found;
    const pods = await readMemberPods(kube, sts);
    return {
        ...(sts.updateRevision ? { revision: sts.updateRevision } : {}),
        replicas: sts.replicas,
        updatedReplicas: sts.updatedReplicas,
        updateStrategy: sts.updateStrategy,
        settled: sts.observedGeneration >= sts.generation,
        stale: sts.updateRevision ? stalePods(sts, pods).map((p) => p.name) : [],
    };
}

/**
 * Replaces every member of OpenBao's `OnDelete` StatefulSet that runs an old template, the way
 * NVIDIA's runbook does by hand: standbys one at a time (highest ordinal first), then the leader
 * after a step-down. Before each replacement every member must be Ready, unsealed, in the one
 * cluster, with one leader; after it, the new pod must be Ready, unsealed, in the same cluster
 * and a Raft voter. At the end the StatefulSet's `updatedReplicas` equals `replicas`
 * (`currentRevision` may never move under `OnDelete`). A member that does not get there stops
 * the rollout with what it is waiting for; the next member is never touched. Runs again safely:
 * members already on the current template are skipped.
 */
export async function rollOut(kube: Kube, members: OpenBaoMembers, target: RolloutTarget, options: RolloutOptions): Promise<RolloutReport> {
    const log = options.log ?? (() => undefined);
    const { namespace, statefulSet } = target;
    const seconds = Math.round(options.memberTimeoutMs / 1000);
    const again = options.rerun ?? "pulumi up";
    const replaced: string[] = [];
    const steppedDown: string[] = [];
    let clusterId = options.expectedClusterId;

    const first = await readStatefulSet(kube, namespace, statefulSet);
    if (!first) return { replaced, steppedDown, nothingToDo: `there is no StatefulSet ${namespace}/${statefulSet}` };
    if (first.updateStrategy !== "OnDelete") {
        return {
            replaced,
            steppedDown,
            nothingToDo: `${statefulSet} uses ${first.updateStrategy}: the StatefulSet controller replaces its pods itself`,
        };
    }
    const sts = await settled(kube, target, options);
    const revision = sts.updateRevision;
    if (!revision) return { replaced, steppedDown, nothingToDo: `${statefulSet} has no pods yet` };

    for (;;) {
        const now = await readStatefulSet(kube, namespace, statefulSet);
        if (now?.updateRevision !== revision) {
            throw new Error(
                `${namespace}/${statefulSet}'s template changed again during the rollout (revision ${revision} became ${now?.updateRevision ?? "none"}); ` +
                    `the members replaced so far (${replaced.join(", ") || "none"}) are healthy; run ${again} again to roll the rest`,
            );
        }
        const stale = stalePods(sts, await readMemberPods(kube, sts));
        if (stale.length === 0) break;
        const before = await waitFor(
            options,
            () => clusterHealth(kube, members, sts, clusterId),
            (why) =>
                `OpenBao is not healthy, so ${stale.map((p) => p.name).join(", ")} ${stale.length === 1 ? "was" : "were"} not replaced: ${why} ` +
                `(still after ${seconds} s). ${replaced.length > 0 ? `Replaced so far: ${replaced.join(", ")}. ` : ""}` +
                `Fix the member (kubectl -n ${namespace} get pods; kubectl -n ${namespace} exec <pod> -c openbao -- bao status), then run ${again} again`,
        );
        clusterId = before.clusterId;
        let leader = before.leader;
        // Standbys first, highest ordinal first (the order of a StatefulSet's own rolling update).
        const standbys = stale.filter((p) => p.name !== leader).sort((a, b) => b.ordinal - a.ordinal);
        const next = standbys[0] ?? stale.find((p) => p.name === leader)!;
        const role = next.name === leader ? "the leader" : "a standby";
        if (next.name === leader && sts.replicas > 1) {
            log(`${next.name} is the leader: asking it to step down`);
            await members.stepDown(leader);
            steppedDown.push(leader);
            leader = await waitFor(
                options,
                () => newLeader(members, sts, leader),
                (why) =>
                    `no other member took over after ${next.name} stepped down (${why}, after ${seconds} s), so it was not replaced. ` +
                    `Look at the members (kubectl -n ${namespace} exec ${next.name} -c openbao -- bao operator raft list-peers), then run ${again} again`,
            );
            log(`${leader} is the leader now`);
        }
        log(`replacing ${next.name} (${role}): revision ${next.revision ?? "none"} -> ${revision}`);
        await deleteMemberPod(kube, namespace, next);
        const rest = stale.filter((p) => p.name !== next.name).map((p) => p.name);
        await waitFor(
            options,
            () => joined(kube, members, sts, next, leader, clusterId, again),
            (why) => stoppedMessage({ namespace, pod: next.name, why, seconds, rest, oldRevision: next.revision, again }),
        );
        replaced.push(next.name);
        log(`${next.name} is back: Ready, unsealed, a voter in cluster ${clusterId ?? "?"}`);
    }

    const pods = await readMemberPods(kube, sts);
    if (pods.every((p) => p !== undefined)) {
        await waitFor(
            options,
            () => allUpdated(kube, target),
            (why) =>
                `every member of ${namespace}/${statefulSet} runs revision ${revision}, but ${why} after ${seconds} s: ` +
                `check the StatefulSet controller (kubectl -n ${namespace} get statefulset ${statefulSet} -o yaml), then run ${again} again`,
        );
    }
    return {
        revision,
        replaced,
        steppedDown,
        ...(clusterId ? { clusterId } : {}),
        ...(replaced.length === 0 ? { nothingToDo: `every member already runs revision ${revision}` } : {}),
    };
}

/** The StatefulSet once its controller has taken in the current template (and named its revision, when it has pods). */
async function settled(kube: Kube, target: RolloutTarget, options: RolloutOptions): Promise<StatefulSetState> {
    const { namespace, statefulSet } = target;
    const again = options.rerun ?? "pulumi up";
    return waitFor<StatefulSetState>(
        options,
        async () => {
            const sts = await readStatefulSet(kube, namespace, statefulSet);
            if (!sts) throw new Error(`StatefulSet ${namespace}/${statefulSet} disappeared during the rollout`);
            if (sts.observedGeneration < sts.generation)
                return { notYet: `observedGeneration ${sts.observedGeneration} of generation ${sts.generation}` };
            const pods = await readMemberPods(kube, sts);
            if (!sts.updateRevision && pods.some((p) => p !== undefined)) return { notYet: "no updateRevision in its status" };
            return { ok: sts };
        },
        (why) =>
            `the StatefulSet controller has not taken in ${namespace}/${statefulSet}'s template after ${Math.round(options.memberTimeoutMs / 1000)} s ` +
            `(${why}), so no member was replaced: check that kube-controller-manager runs, then run ${again} again`,
    );
}

/** Every member Ready, initialised, unsealed, in one cluster (the expected one), with one leader. */
async function clusterHealth(
    kube: Kube,
    members: OpenBaoMembers,
    sts: StatefulSetState,
    expectedClusterId: string | undefined,
): Promise<Look<{ leader: string; clusterId?: string }>> {
    const pods = await readMemberPods(kube, sts);
    const leaders: string[] = [];
    const ids = new Map<string, string>();
    for (let ordinal = 0; ordinal < sts.replicas; ordinal++) {
        const pod = pods[ordinal];
        const name = `${sts.name}-${ordinal}`;
        if (!pod) return { notYet: `${name} has no pod` };
        if (pod.terminating) return { notYet: `${name} is terminating` };
        if (!pod.ready) return { notYet: `${name} is not Ready` };
        const look = await memberLook(members, name);
        if ("notYet" in look) return look;
        const { health, isSelf } = look.ok;
        if (health.clusterId) ids.set(name, health.clusterId);
        if (isSelf) leaders.push(name);
    }
    const distinct = [...new Set(ids.values())];
    if (distinct.length > 1 || (expectedClusterId && distinct[0] && distinct[0] !== expectedClusterId)) {
        const seen = [...ids.entries()].map(([n, id]) => `${n}: ${id}`).join(", ");
        throw new Error(
            `OpenBao's members are not one cluster (${seen}${expectedClusterId ? `; the cluster was ${expectedClusterId}` : ""}), so no member was replaced: ` +
                `find the member that left (kubectl -n ${sts.namespace} exec <pod> -c openbao -- bao operator raft list-peers) before going on`,
        );
    }
    if (leaders.length !== 1)
        return { notYet: leaders.length === 0 ? "no member is the leader" : `${leaders.join(" and ")} both say they lead` };
    // Also proves the token works before any pod is deleted (the configuration needs one).
    const voters = await raftVoters(members, leaders[0]);
    if ("notYet" in voters) return voters;
    const missing = pods.filter((p): p is MemberPod => p !== undefined && !voters.ok.has(p.name)).map((p) => p.name);
    if (missing.length > 0) {
        return {
            notYet: `${missing.join(", ")} ${missing.length === 1 ? "is" : "are"} not a voter in the Raft configuration of ${leaders[0]}`,
        };
    }
    return { ok: { leader: leaders[0], ...(distinct[0] ? { clusterId: distinct[0] } : {}) } };
}

/** Another member than `old` says it is the leader. */
async function newLeader(members: OpenBaoMembers, sts: StatefulSetState, old: string): Promise<Look<string>> {
    const reasons: string[] = [];
    for (let ordinal = 0; ordinal < sts.replicas; ordinal++) {
        const name = `${sts.name}-${ordinal}`;
        if (name === old) continue;
        const look = await memberLook(members, name);
        if ("ok" in look && look.ok.isSelf) return { ok: name };
        reasons.push("notYet" in look ? look.notYet : `${name} is a standby`);
    }
    return { notYet: reasons.join("; ") || "there is no other member" };
}

/** The replacement of `old`: a new pod of the current revision, Ready, unsealed, in the cluster, a Raft voter. */
async function joined(
    kube: Kube,
    members: OpenBaoMembers,
    sts: StatefulSetState,
    old: MemberPod,
    leader: string,
    clusterId: string | undefined,
    again: string,
): Promise<Look<true>> {
    const pod = (await readMemberPods(kube, sts))[old.ordinal];
    if (!pod || pod.uid === old.uid) return { notYet: "its pod has not been recreated (the StatefulSet controller recreates it)" };
    if (pod.revision !== sts.updateRevision) {
        throw new Error(
            `${old.name} was recreated from revision ${pod.revision ?? "none"}, not ${sts.updateRevision}: the StatefulSet's template ` +
                `changed under the rollout; run ${again} again`,
        );
    }
    if (!pod.ready) return { notYet: "its new pod is not Ready" };
    let health: MemberHealth;
    try {
        health = await members.health(old.name);
    } catch (err) {
        if (err instanceof MemberAnswerError && !err.refused) return { notYet: `it does not answer yet (${err.message})` };
        throw err;
    }
    if (!health.initialized) return { notYet: "it is not initialised" };
    if (health.sealed) return { notYet: "it is still sealed" };
    if (clusterId && health.clusterId && health.clusterId !== clusterId) {
        throw new Error(
            `${old.name} came back in cluster ${health.clusterId}, not in OpenBao's cluster ${clusterId}; the rollout stopped before the next member. ` +
                `Its Raft data is not the cluster's: look at it (kubectl -n ${sts.namespace} exec ${old.name} -c openbao -- bao status) before going on`,
        );
    }
    const voters = await raftVoters(members, leader);
    if ("notYet" in voters) return voters;
    if (!voters.ok.has(old.name)) return { notYet: `it is not a voter in the Raft configuration of ${leader} yet` };
    return { ok: true };
}

/** The members the leader's Raft configuration lists as voters (by node ID, and by the pod name its address starts with). */
async function raftVoters(members: OpenBaoMembers, leader: string): Promise<Look<Set<string>>> {
    try {
        const servers = await members.raftServers(leader);
        return { ok: new Set(servers.filter((s) => s.voter).flatMap((s) => [s.nodeId, s.address.split(".")[0]])) };
    } catch (err) {
        if (err instanceof MemberAnswerError && !err.refused)
            return { notYet: `the Raft configuration could not be read (${err.message})` };
        throw err;
    }
}

async function allUpdated(kube: Kube, target: RolloutTarget): Promise<Look<true>> {
    const sts = await readStatefulSet(kube, target.namespace, target.statefulSet);
    if (!sts) throw new Error(`StatefulSet ${target.namespace}/${target.statefulSet} disappeared during the rollout`);
    if (sts.observedGeneration < sts.generation)
        return { notYet: `its status is for generation ${sts.observedGeneration} of ${sts.generation}` };
    if (sts.updatedReplicas !== sts.replicas)
        return { notYet: `the StatefulSet reports updatedReplicas ${sts.updatedReplicas} of ${sts.replicas}` };
    return { ok: true };
}

/** The message of a member that did not come back: what it waits for, what to look at, where the rollout stopped. */
function stoppedMessage(m: {
    namespace: string;
    pod: string;
    why: string;
    seconds: number;
    rest: string[];
    oldRevision?: string;
    again: string;
}): string {
    const { namespace, pod, why, seconds, rest, oldRevision, again } = m;
    const left =
        rest.length > 0
            ? `The rollout stopped before the next member: ${rest.join(", ")} still run${rest.length === 1 ? "s" : ""} the old template${oldRevision ? ` (revision ${oldRevision})` : ""}. `
            : "It was the last member on the old template. ";
    const sealed = /sealed/.test(why)
        ? `Its auto-unseal sidecar unseals it with the key in Secret ${namespace}/openbao-server-unseal: read its log ` +
          `(kubectl -n ${namespace} logs ${pod} -c auto-unseal-sidecar), or unseal it by hand ` +
          `(kubectl -n ${namespace} exec -it ${pod} -c openbao -- bao operator unseal). `
        : `Look at it: kubectl -n ${namespace} describe pod ${pod}; kubectl -n ${namespace} logs ${pod} -c openbao. `;
    return `${pod} was replaced, but ${why} after ${seconds} s. ${left}${sealed}Then run ${again} again: it checks every member and goes on with the ones left.`;
}

/** Polls `look` until it is ok, `memberTimeoutMs` has passed (then the message of the last reason), or it stops. */
async function waitFor<T>(options: RolloutOptions, look: () => Promise<Look<T>>, timedOut: (why: string) => string): Promise<T> {
    const deadline = Date.now() + options.memberTimeoutMs;
    for (;;) {
        const result = await look();
        if ("ok" in result) return result.ok;
        if (Date.now() + options.pollMs > deadline) throw new Error(timedOut(result.notYet));
        await new Promise((r) => setTimeout(r, options.pollMs));
    }
}
