import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { JwtBaseline } from "../lib/openbao/jwt-mounts";
import { JwtBaselineProvider, type JwtBaselineInputs } from "../components/providers/openbao-jwt-baseline";
import { OpenBaoRolloutProvider, type OpenBaoRolloutInputs, type OpenBaoRolloutOutputs } from "../components/providers/openbao-rollout";
import { FakeOpenBaoCluster } from "./support/fake-openbao-cluster";
import { INSTALLED_JWT_MOUNT, jwtMount } from "./support/fake-openbao-members";

// The dynamic providers around the rollout and the JWT baseline: what preview (diff), up
// (create/update) and refresh (read) do, against the in-process cluster.

const REACH = {
    reach: { kubeconfigSource: "control-plane" as const },
    namespace: "vault-system",
    statefulSet: "openbao-server",
    port: 8200,
    scheme: "http" as const,
    tokenSource: "kubernetes-secret" as const,
    tokenSecret: { namespace: "vault-system", name: "openbao-server-root-token", key: "root_token" },
};
const TEMPLATE = { chart: "helm-nvcf-openbao-server", version: "0.30.25", server: { annotations: { "example.com/a": "1" } } };

function inputs(over: Partial<OpenBaoRolloutInputs> = {}): OpenBaoRolloutInputs {
    return { ...REACH, podTemplate: TEMPLATE, enabled: true, memberTimeoutSeconds: 2, pollSeconds: 1, ...over };
}

async function rollout(cluster: FakeOpenBaoCluster, config: Record<string, string> = {}) {
    const said: string[] = [];
    const p = new OpenBaoRolloutProvider({ kube: cluster, say: (l) => said.push(l), pollMs: 1 });
    await p.configure({ config: { get: (k: string) => config[k], require: (k: string) => config[k] } });
    return { p, said };
}

describe("the OpenBaoRollout resource", () => {
    test("create on a new install replaces nothing; an annotation change is an update that rolls every member", async () => {
        const cluster = new FakeOpenBaoCluster();
        const { p, said } = await rollout(cluster);
        const { id, outs } = await p.create(inputs());
        assert.equal(id, "vault-system/openbao-server");
        assert.deepEqual(outs?.replaced, []);
        assert.deepEqual(cluster.deleted, []);
        assert.match(said.join("\n"), /nothing to replace \(every member already runs revision openbao-server-rev1\)/);

        const changed = inputs({ podTemplate: { ...TEMPLATE, server: { annotations: { "example.com/a": "2" } } } });
        assert.equal((await p.diff(id, outs!, changed)).changes, true, "the plan shows the rollout");
        cluster.setTemplate("openbao-server-rev2"); // what Helm's upgrade of the release does first
        const { outs: after } = await p.update(id, outs!, changed);
        assert.deepEqual(after!.replaced, ["openbao-server-2", "openbao-server-1", "openbao-server-0"]);
        assert.deepEqual(after!.staleMembers, []);
        assert.equal(after!.revision, "openbao-server-rev2");
        assert.equal(after!.clusterId, cluster.bao.clusterId);
        assert.match(
            said.join("\n"),
            /openbao-server rollout: replacing openbao-server-2 \(a standby\): revision openbao-server-rev1 -> openbao-server-rev2/,
        );
        assert.equal((await p.diff(id, after!, changed)).changes, false, "no change once every member is on the template");
    });

    test("same inputs, but a member on an old revision (an interrupted rollout): the plan shows an update, up finishes it", async () => {
        const cluster = new FakeOpenBaoCluster();
        const { p } = await rollout(cluster);
        const { id, outs } = await p.create(inputs());
        cluster.setTemplate("openbao-server-rev2");
        assert.equal((await p.diff(id, outs!, inputs())).changes, true);
        const { outs: after } = await p.update(id, outs!, inputs());
        assert.equal(after!.replaced.length, 3);
    });

    test("refresh reports members on an old revision as drift (staleMembers), and the next up rolls them", async () => {
        const cluster = new FakeOpenBaoCluster();
        const { p } = await rollout(cluster);
        const { id, outs } = await p.create(inputs());
        cluster.setTemplate("openbao-server-rev2");
        const read = await p.read(id, outs!);
        assert.deepEqual(read.props!.staleMembers, ["openbao-server-0", "openbao-server-1", "openbao-server-2"]);
        assert.equal(read.props!.revision, "openbao-server-rev2");
        assert.equal((await p.diff(id, read.props!, inputs())).changes, true);
    });

    test("off: no pod is deleted, and preview and up say which members still run the old template and how to roll them", async () => {
        const cluster = new FakeOpenBaoCluster();
        const { p, said } = await rollout(cluster);
        const off = inputs({ enabled: false });
        const { id, outs } = await p.create(off);
        const changed = { ...off, podTemplate: { ...TEMPLATE, version: "0.32.9" } };
        assert.equal((await p.diff(id, outs!, changed)).changes, true);
        assert.match(
            said.pop()!,
            /^openbao-server: its pod template changes and the automatic rollout is off \(nvcf-self-managed:openbaoRollout\.enabled: false\): after pulumi up its members keep running the old template until they are replaced; replace them one at a time, standbys first and the leader last after `bao operator step-down`/,
        );
        cluster.setTemplate("openbao-server-rev2");
        const { outs: after } = await p.update(id, outs!, changed);
        assert.deepEqual(cluster.deleted, []);
        assert.deepEqual(after!.staleMembers, ["openbao-server-0", "openbao-server-1", "openbao-server-2"]);
        assert.match(
            said.pop()!,
            /^openbao-server: openbao-server-0, openbao-server-1, openbao-server-2 still run an old pod template \(the StatefulSet's is revision openbao-server-rev2\) and the automatic rollout is off; replace them/,
        );
        // Still stale: every later plan says so again.
        assert.equal((await p.diff(id, after!, changed)).changes, true);
        assert.match(said.pop()!, /still run an old pod template/);
    });

    test("an unreachable cluster in the plan is an update (up then fails with the cause), never a silent no-change", async () => {
        const said: string[] = [];
        const p = new OpenBaoRolloutProvider({ say: (l) => said.push(l) });
        await p.configure({ config: { get: () => undefined, require: () => "" } });
        const old = { ...inputs(), revision: "r", staleMembers: [], replaced: [], clusterId: "" } as OpenBaoRolloutOutputs;
        const unreachable = inputs({
            reach: { kubeconfigSource: "control-plane", kubeconfig: "apiVersion: v1\nkind: Config\nclusters: []\ncontexts: []\n" },
        });
        const diff = await p.diff("x", { ...old, reach: unreachable.reach }, unreachable);
        assert.equal(diff.changes, true);
        assert.match(said.join("\n"), /openbao-server: could not look at its members \(the kubeconfig names no cluster server/);
    });

    test("with the JWT plugin lifecycle: the mounts are checked against the baseline after the rollout", async () => {
        const cluster = new FakeOpenBaoCluster();
        const { p, said } = await rollout(cluster);
        const I = INSTALLED_JWT_MOUNT;
        const baseline: JwtBaseline = {
            capturedAt: "2026-12-01T00:00:00.000Z",
            newInstall: false,
            mounts: [{ path: I.path, uuid: I.uuid, pluginVersion: I.version, runningVersion: I.version, runningSha256: I.sha256 }],
        };
        cluster.setTemplate("openbao-server-rev2");
        const { outs } = await p.create(inputs({ jwtPluginLifecycle: { mode: "bridge", baseline } }));
        assert.deepEqual(outs!.jwtMounts, { kept: ["services/nvcf-api/jwt/"], added: [] });
        assert.match(said.join("\n"), /openbao-server: JWT mounts checked against the baseline: 1 kept their plugin, 0 new/);
        // A retuned mount fails the update (up), naming the mount.
        cluster.bao.mounts["services/nvcf-api/jwt/"] = jwtMount("v1.4.1", "b".repeat(64), "uuid-nvcf-api");
        await assert.rejects(
            p.update("x", outs!, inputs({ jwtPluginLifecycle: { mode: "versioned", baseline } })),
            /mount services\/nvcf-api\/jwt\/ ran v1\.3\.7 .* and now runs v1\.4\.1/,
        );
    });

    test("the token from config: missing, it fails only when a call needs one", async () => {
        const cluster = new FakeOpenBaoCluster();
        const { p } = await rollout(cluster);
        const fromConfig = inputs({ tokenSource: "config" });
        await p.create(fromConfig); // nothing to roll: no token needed
        cluster.setTemplate("openbao-server-rev2");
        await assert.rejects(
            p.update("x", {} as OpenBaoRolloutOutputs, fromConfig),
            /no OpenBao token: set it with `pulumi config set --secret openbaoToken <token>`/,
        );
        assert.deepEqual(cluster.deleted, []);
        const configured = await rollout(cluster, { "nvcf-self-managed:openbaoToken": cluster.bao.rootToken });
        assert.equal((await configured.p.update("x", {} as OpenBaoRolloutOutputs, fromConfig)).outs!.replaced.length, 3);
    });
});

describe("the OpenBaoJwtBaseline resource", () => {
    const baselineInputs = (mode: "bridge" | "versioned" = "bridge"): JwtBaselineInputs => ({ ...REACH, mode });
    const provider = (cluster: FakeOpenBaoCluster) => {
        const p = new JwtBaselineProvider({ kube: cluster, now: () => new Date("2026-12-01T10:00:00Z") });
        return p;
    };

    test("captured once from the running OpenBao, and kept when the mode moves on to versioned", async () => {
        const cluster = new FakeOpenBaoCluster();
        const p = provider(cluster);
        const { outs } = await p.create(baselineInputs());
        assert.equal(outs!.baseline.capturedAt, "2026-12-01T10:00:00.000Z");
        assert.deepEqual(
            outs!.baseline.mounts.map((m) => [m.path, m.runningVersion]),
            [["services/nvcf-api/jwt/", "v1.3.7"]],
        );
        cluster.bao.mounts["services/later/jwt/"] = jwtMount("v1.4.1", "b".repeat(64), "uuid-later");
        assert.equal((await p.diff("x", outs!, baselineInputs("versioned"))).changes, true);
        const { outs: kept } = await p.update("x", outs!, baselineInputs("versioned"));
        assert.deepEqual(kept!.baseline, outs!.baseline, "never captured again");
        assert.equal(kept!.mode, "versioned");
        assert.deepEqual((await p.read("x", kept!)).props, kept);
    });

    test("before OpenBao is installed: a new-install baseline; installed with no leader: stop before changing it", async () => {
        const none = new FakeOpenBaoCluster();
        none.exists = false;
        assert.equal((await provider(none).create(baselineInputs())).outs!.baseline.newInstall, true);
        const sealed = new FakeOpenBaoCluster();
        for (const n of sealed.bao.names) sealed.bao.member(n).sealed = true;
        await assert.rejects(
            provider(sealed).create(baselineInputs()),
            /openbao-server is installed but no member says it leads, so the JWT mounts' baseline could not be captured and OpenBao was not changed/,
        );
    });
});
