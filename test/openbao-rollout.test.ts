import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { openBaoMembers, type TokenSource } from "../lib/openbao/access";
import { leaderOf, memberLook } from "../lib/openbao/leader";
import { memberRevisions, rollOut, type RolloutOptions } from "../lib/openbao/rollout";
import { FakeOpenBaoCluster } from "./support/fake-openbao-cluster";
import { RUNBOOK_EVENTS } from "./support/fake-openbao-members";
import { OPENBAO_VERSIONS, type OpenBaoVersion } from "./support/openbao-answers";

// The rollout against an in-process API server that plays the StatefulSet controller and the
// kubelet, with OpenBao's members behind the pod proxy (test/support/fake-openbao-*.ts).

const TARGET = { namespace: "vault-system", statefulSet: "openbao-server" };
const ROOT_SECRET: TokenSource = { secret: { namespace: "vault-system", name: "openbao-server-root-token", key: "root_token" } };
const FAST: RolloutOptions = { memberTimeoutMs: 2000, pollMs: 1 };
/** For the cases that must stop: short enough that the whole file stays fast. */
const SHORT: RolloutOptions = { memberTimeoutMs: 150, pollMs: 1 };

function world(replicas = 3, token: TokenSource = ROOT_SECRET, version: OpenBaoVersion = "2.5.5") {
    const cluster = new FakeOpenBaoCluster(replicas);
    cluster.bao.version = version;
    const members = openBaoMembers(cluster, { namespace: "vault-system", port: 8200, scheme: "http" }, token);
    return { cluster, members, bao: cluster.bao };
}

const pods = (...ordinals: number[]) => ordinals.map((o) => `openbao-server-${o}`);

// Each test has a world of its own: they run together, their deliberate timeouts overlapping.
describe("the rollout of OpenBao's OnDelete StatefulSet", { concurrency: true }, () => {
    test("standbys one at a time, highest ordinal first, then the leader after a step-down; each back before the next", async () => {
        const { cluster, members, bao } = world();
        cluster.setTemplate("openbao-server-rev2");
        const lines: string[] = [];
        const report = await rollOut(cluster, members, TARGET, { ...FAST, log: (l) => lines.push(l) });
        assert.deepEqual(cluster.deleted, pods(2, 1, 0));
        assert.deepEqual(bao.events, RUNBOOK_EVENTS);
        assert.deepEqual(report.replaced, pods(2, 1, 0));
        assert.deepEqual(report.steppedDown, ["openbao-server-0"]);
        assert.equal(report.revision, "openbao-server-rev2");
        assert.equal(report.clusterId, bao.clusterId);
        assert.equal(cluster.updatedReplicas, 3);
        // currentRevision never moved (OnDelete); the rollout did not wait for it.
        assert.equal(cluster.currentRevision, "openbao-server-rev1");
        assert.match(lines.join("\n"), /openbao-server-0 is the leader: asking it to step down\nopenbao-server-1 is the leader now/);
        assert.deepEqual((await memberRevisions(cluster, TARGET))?.stale, []);
    });

    test("the leader is whoever says is_self: with openbao-server-1 leading, 2 and 0 go first", async () => {
        const { cluster, members, bao } = world();
        bao.leader = "openbao-server-1";
        cluster.setTemplate("openbao-server-rev2");
        await rollOut(cluster, members, TARGET, FAST);
        assert.deepEqual(cluster.deleted, pods(2, 0, 1));
        assert.ok(bao.events.indexOf("step-down openbao-server-1") < bao.events.indexOf("restart openbao-server-1"));
    });

    test("nothing happens when the template did not change: no pod deleted, nothing asked of OpenBao", async () => {
        const { cluster, members, bao } = world();
        const report = await rollOut(cluster, members, TARGET, FAST);
        assert.deepEqual(cluster.deleted, []);
        assert.deepEqual(bao.requests, []);
        assert.deepEqual(report.replaced, []);
        assert.match(report.nothingToDo ?? "", /every member already runs revision openbao-server-rev1/);
    });

    test("a rerun is safe: after a full rollout it does nothing; after a partial one it replaces only the rest", async () => {
        const { cluster, members } = world();
        cluster.setTemplate("openbao-server-rev2");
        await rollOut(cluster, members, TARGET, FAST);
        await rollOut(cluster, members, TARGET, FAST);
        assert.deepEqual(cluster.deleted, pods(2, 1, 0), "the second run deleted nothing");

        const partial = world();
        partial.cluster.setTemplate("openbao-server-rev2");
        // An earlier run replaced openbao-server-2 and stopped.
        await partial.cluster.request("DELETE", "/api/v1/namespaces/vault-system/pods/openbao-server-2");
        const report = await rollOut(partial.cluster, partial.members, TARGET, FAST);
        assert.deepEqual(report.replaced, pods(1, 0));
    });

    test("a member that stays sealed stops the rollout, naming it; the next member is never touched", async () => {
        const { cluster, members, bao } = world();
        bao.staysSealed.add("openbao-server-2");
        cluster.setTemplate("openbao-server-rev2");
        await assert.rejects(rollOut(cluster, members, TARGET, SHORT), (err: Error) => {
            assert.match(err.message, /^openbao-server-2 was replaced, but it is still sealed after 0 s\./);
            assert.match(err.message, /openbao-server-0, openbao-server-1 still run the old template \(revision openbao-server-rev1\)/);
            assert.match(err.message, /kubectl -n vault-system logs openbao-server-2 -c auto-unseal-sidecar/);
            assert.match(err.message, /bao operator unseal/);
            assert.match(err.message, /Then run pulumi up again/);
            return true;
        });
        assert.deepEqual(cluster.deleted, pods(2));
        // Still sealed: a rerun stops before any other member.
        await assert.rejects(
            rollOut(cluster, members, TARGET, SHORT),
            /OpenBao is not healthy, so openbao-server-0, openbao-server-1 were not replaced: openbao-server-2 is sealed/,
        );
        assert.deepEqual(cluster.deleted, pods(2));
        // Unsealed (by hand, or the sidecar got its key): the rerun goes on with the members left.
        bao.staysSealed.clear();
        const report = await rollOut(cluster, members, TARGET, FAST);
        assert.deepEqual(report.replaced, pods(1, 0));
    });

    test("a member that comes back in another cluster stops the rollout at once", async () => {
        const { cluster, members, bao } = world();
        bao.rejoinsAs.set("openbao-server-2", "deadbeef-other-cluster");
        cluster.setTemplate("openbao-server-rev2");
        await assert.rejects(
            rollOut(cluster, members, TARGET, FAST),
            /openbao-server-2 came back in cluster deadbeef-other-cluster, not in OpenBao's cluster c0ffee00-0000-4000-8000-000000000001; the rollout stopped before the next member/,
        );
        assert.deepEqual(cluster.deleted, pods(2));
    });

    test("members that disagree on the cluster, or a cluster ID other than the expected one, replace nothing", async () => {
        const { cluster, members } = world();
        cluster.setTemplate("openbao-server-rev2");
        await assert.rejects(
            rollOut(cluster, members, TARGET, { ...FAST, expectedClusterId: "the-original-id" }),
            /OpenBao's members are not one cluster \(.*; the cluster was the-original-id\), so no member was replaced/,
        );
        assert.deepEqual(cluster.deleted, []);
    });

    test("a member already sealed before the rollout: nothing is replaced", async () => {
        const { cluster, members, bao } = world();
        bao.member("openbao-server-1").sealed = true;
        cluster.setTemplate("openbao-server-rev2");
        await assert.rejects(
            rollOut(cluster, members, TARGET, SHORT),
            /OpenBao is not healthy, so openbao-server-0, openbao-server-1, openbao-server-2 were not replaced: openbao-server-1 is sealed \(still after 0 s\)\. Fix the member/,
        );
        assert.deepEqual(cluster.deleted, []);
    });

    test("without the StatefulSet controller: the new template is never taken in, or a deleted pod never comes back", async () => {
        const idle = world();
        idle.cluster.controllerRunning = false;
        idle.cluster.setTemplate("openbao-server-rev2");
        await assert.rejects(
            rollOut(idle.cluster, idle.members, TARGET, SHORT),
            /the StatefulSet controller has not taken in vault-system\/openbao-server's template after 0 s \(observedGeneration 1 of generation 2\), so no member was replaced: check that kube-controller-manager runs/,
        );
        assert.deepEqual(idle.cluster.deleted, []);

        const stops = world();
        stops.cluster.setTemplate("openbao-server-rev2");
        stops.cluster.controllerRunning = false;
        await assert.rejects(
            rollOut(stops.cluster, stops.members, TARGET, SHORT),
            /openbao-server-2 was replaced, but its pod has not been recreated \(the StatefulSet controller recreates it\) after 0 s/,
        );
        assert.deepEqual(stops.cluster.deleted, pods(2));
    });

    test("no member takes over after the step-down: the leader is not deleted", async () => {
        const { cluster, members, bao } = world();
        bao.electsOnStepDown = false;
        cluster.setTemplate("openbao-server-rev2");
        await assert.rejects(rollOut(cluster, members, TARGET, SHORT), (err: Error) => {
            assert.match(err.message, /^no other member took over after openbao-server-0 stepped down \(/);
            assert.match(err.message, /so it was not replaced/);
            return true;
        });
        assert.deepEqual(cluster.deleted, pods(2, 1));
    });

    test("the StatefulSet must report updatedReplicas equal to replicas at the end", async () => {
        const { cluster, members } = world();
        cluster.setTemplate("openbao-server-rev2");
        cluster.reportedUpdatedReplicas = 2;
        await assert.rejects(
            rollOut(cluster, members, TARGET, { ...FAST, memberTimeoutMs: 300 }),
            /every member of vault-system\/openbao-server runs revision openbao-server-rev2, but the StatefulSet reports updatedReplicas 2 of 3/,
        );
    });

    test("a refused token stops before any pod is deleted (the Raft configuration is read first)", async () => {
        const { cluster, members } = world(3, { token: "not-the-token" });
        cluster.setTemplate("openbao-server-rev2");
        await assert.rejects(rollOut(cluster, members, TARGET, FAST), (err: Error) => {
            assert.match(
                err.message,
                /openbao-server-0: GET \/v1\/sys\/storage\/raft\/configuration: OpenBao answered 403 \(permission denied\): the token is wrong/,
            );
            assert.doesNotMatch(err.message, /not-the-token/);
            return true;
        });
        assert.deepEqual(cluster.deleted, []);
    });

    test("answers of the wrong shape and members that never answer end with what came back, naming the member", async () => {
        const shape = world();
        shape.bao.inject(/^openbao-server-1 GET sys\/health$/, { status: 200, body: { hello: "world" } }, 1000);
        shape.cluster.setTemplate("openbao-server-rev2");
        await assert.rejects(
            rollOut(shape.cluster, shape.members, TARGET, SHORT),
            /openbao-server-1: GET \/v1\/sys\/health\?standbyok=true.* answered 200 without OpenBao's documented initialized, sealed and standby: \{"hello":"world"\}/,
        );
        assert.deepEqual(shape.cluster.deleted, []);

        const silent = world();
        silent.cluster.setTemplate("openbao-server-rev2");
        silent.cluster.startingLooks = 1_000_000;
        await assert.rejects(rollOut(silent.cluster, silent.members, TARGET, SHORT), (err: Error) => {
            assert.match(err.message, /^openbao-server-2 was replaced, but its new pod is not Ready after 0 s/);
            return true;
        });
    });

    test("nothing to do without a StatefulSet, or when the controller rolls it itself (RollingUpdate)", async () => {
        const none = world();
        none.cluster.exists = false;
        assert.match(
            (await rollOut(none.cluster, none.members, TARGET, FAST)).nothingToDo ?? "",
            /there is no StatefulSet vault-system\/openbao-server/,
        );
        const rolling = world();
        rolling.cluster.updateStrategy = "RollingUpdate";
        rolling.cluster.setTemplate("openbao-server-rev2");
        assert.match((await rollOut(rolling.cluster, rolling.members, TARGET, FAST)).nothingToDo ?? "", /uses RollingUpdate/);
        assert.deepEqual(rolling.cluster.deleted, []);
    });

    test("a single member is replaced without a step-down (there is no one to hand over to)", async () => {
        const { cluster, members, bao } = world(1);
        cluster.setTemplate("openbao-server-rev2");
        const report = await rollOut(cluster, members, TARGET, FAST);
        assert.deepEqual(report.replaced, pods(0));
        assert.deepEqual(report.steppedDown, []);
        assert.ok(!bao.events.some((e) => e.startsWith("step-down")));
    });
});

// OpenBao 2.6.0 (openbao/openbao dd957eaed3) omits a false is_self from sys/leader and performance_standby from sys/health.
describe("the rollout against each supported OpenBao version's answers", { concurrency: true }, () => {
    for (const version of OPENBAO_VERSIONS) {
        test(`OpenBao ${version}: a standby reads as a healthy standby, the active member as the leader`, async () => {
            const { cluster, members, bao } = world(3, ROOT_SECRET, version);
            const standby = { initialized: true, sealed: false, standby: true, clusterId: bao.clusterId, version };
            assert.deepEqual(await members.health("openbao-server-1"), standby);
            assert.deepEqual(await members.leader("openbao-server-1"), {
                isSelf: false,
                leaderAddress: "http://openbao-server-0.openbao-server-internal:8200",
            });
            assert.deepEqual(await memberLook(members, "openbao-server-1"), { ok: { health: standby, isSelf: false } });
            assert.equal((await members.leader("openbao-server-0")).isSelf, true);
            assert.equal(await leaderOf(cluster, members, TARGET), "openbao-server-0");
            // Between a step-down and the next election a standby knows no active member.
            bao.leader = undefined;
            assert.deepEqual(await members.leader("openbao-server-1"), { isSelf: false, leaderAddress: "" });
            assert.equal(await leaderOf(cluster, members, TARGET), undefined);
        });

        test(`OpenBao ${version}: standbys first, highest ordinal first, then the leader after its step-down`, async () => {
            const { cluster, members, bao } = world(3, ROOT_SECRET, version);
            cluster.setTemplate("openbao-server-rev2");
            const report = await rollOut(cluster, members, TARGET, FAST);
            assert.deepEqual(cluster.deleted, pods(2, 1, 0));
            assert.deepEqual(bao.events, RUNBOOK_EVENTS);
            assert.deepEqual(report.steppedDown, ["openbao-server-0"]);
            assert.equal(report.clusterId, bao.clusterId);
            assert.deepEqual((await memberRevisions(cluster, TARGET))?.stale, []);
        });

        test(`OpenBao ${version}: with openbao-server-1 leading, 2 and 0 go first`, async () => {
            const { cluster, members, bao } = world(3, ROOT_SECRET, version);
            bao.leader = "openbao-server-1";
            cluster.setTemplate("openbao-server-rev2");
            await rollOut(cluster, members, TARGET, FAST);
            assert.deepEqual(cluster.deleted, pods(2, 0, 1));
        });
    }

    test("a sys/leader answer without ha_enabled (every version sends it), or with an is_self not a boolean, is refused", async () => {
        const { members, bao } = world(3, ROOT_SECRET, "2.6.2");
        bao.inject(/^openbao-server-1 GET sys\/leader$/, { status: 200, body: { is_self: false } });
        await assert.rejects(
            members.leader("openbao-server-1"),
            /^MemberAnswerError: openbao-server-1: GET \/v1\/sys\/leader answered 200 without OpenBao's documented ha_enabled: \{"is_self":false\}$/,
        );
        bao.inject(/^openbao-server-1 GET sys\/leader$/, { status: 200, body: { ha_enabled: true, is_self: "false" } });
        await assert.rejects(
            members.leader("openbao-server-1"),
            /openbao-server-1: GET \/v1\/sys\/leader answered 200 without OpenBao's documented is_self \(a boolean, absent when false\)/,
        );
    });
});
