import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { SIDECAR_PULL_SECRET } from "../lib/openbao/contract";
import { dockerAuthProblem, holds } from "../lib/openbao/kv-credential";
import { podsOlderThan } from "../lib/openbao/readers";
import { KvCredentialProvider, type KvCredentialInputs, type KvCredentialOutputs } from "../components/providers/openbao-kv-credential";
import { FakeOpenBaoCluster } from "./support/fake-openbao-cluster";
import { OPENBAO_REACH } from "./support/openbao-reach";

// The sidecar image-pull credential kept equal to the stack file: its format rule, the restart
// decision, and the provider against the fake OpenBao members and Deployments.

const auth = (key: string) => Buffer.from(`$oauthtoken:${key}`).toString("base64");
const NVCF_API = SIDECAR_PULL_SECRET.nvcfApi;
const NVCT_API = SIDECAR_PULL_SECRET.nvctApi;
const path = (t: { mount: string; key: string }) => `${t.mount}/data/${t.key}`;

describe("the credential's format and the restart decision", () => {
    test("a raw docker auth string is base64 of <user>:<key>; a dockerconfigjson or plain text is not", () => {
        assert.equal(dockerAuthProblem(auth("nvapi-123")), undefined);
        const configJson = Buffer.from(JSON.stringify({ auths: { "nvcr.io": { auth: auth("k") } } })).toString("base64");
        assert.match(dockerAuthProblem(configJson)!, /dockerconfigjson/);
        assert.equal(dockerAuthProblem("nvapi-123 key"), "it is not base64");
        assert.equal(dockerAuthProblem(Buffer.from("no-colon").toString("base64")), "it does not decode to <user>:<key>");
        assert.equal(dockerAuthProblem(Buffer.from("user:").toString("base64")), "it does not decode to <user>:<key>");
    });

    test("a stored version holds the credential only with exactly its fields", () => {
        const v = (data: Record<string, unknown>) => ({ data, createdTime: "2026-12-03T10:00:00Z", version: 1 });
        assert.equal(holds(v({ secret: "a" }), { secret: "a" }), true);
        assert.equal(holds(v({ secret: "b" }), { secret: "a" }), false);
        assert.equal(holds(v({ secret: "a", extra: "x" }), { secret: "a" }), false);
        assert.equal(holds(undefined, { secret: "a" }), false);
    });

    test("pods started before the write (the same second included) hold the old value; pending and terminating pods do not count", () => {
        const written = "2026-12-03T10:00:05.250000000Z";
        const pods = [
            { name: "before", startTime: "2026-12-03T10:00:04Z", terminating: false },
            { name: "same-second", startTime: "2026-12-03T10:00:05Z", terminating: false },
            { name: "after", startTime: "2026-12-03T10:00:06Z", terminating: false },
            { name: "pending", terminating: false },
            { name: "going", startTime: "2026-12-03T09:00:00Z", terminating: true },
        ];
        assert.deepEqual(podsOlderThan(pods, written), ["before", "same-second"]);
    });
});

/** OpenBao with migrations 09 and 20 run (the first key), nvcf-api and nvct-api started an hour later. */
function world(firstKey = "first") {
    const cluster = new FakeOpenBaoCluster();
    const t0 = Date.parse("2026-12-03T09:00:00Z");
    let clock = t0;
    const now = () => new Date((clock += 1000));
    cluster.bao.now = now;
    cluster.now = now;
    for (const t of [NVCF_API, NVCT_API])
        cluster.bao.kv.set(path(t), [{ data: { secret: auth(firstKey) }, created_time: new Date(t0).toISOString() }]);
    clock = t0 + 3600_000;
    cluster.addDeployment("nvcf", "nvcf-api", "api", "2026-12-03T09:00:30Z");
    cluster.addDeployment("nvcf", "nvct-api", "nvct-api", "2026-12-03T09:00:30Z");
    const said: string[] = [];
    const provider = new KvCredentialProvider({ kube: cluster, pollMs: 1, say: (l) => said.push(l) });
    return { cluster, provider, said };
}

function inputs(key: string, over: Partial<KvCredentialInputs> = {}): KvCredentialInputs {
    return {
        ...OPENBAO_REACH,
        credential: "the sidecar image-pull credential",
        targets: [NVCF_API, NVCT_API],
        data: { secret: auth(key) },
        format: "docker-auth",
        readers: [
            { namespace: "nvcf", release: "api" },
            { namespace: "nvcf", release: "nvct-api" },
        ],
        timeoutSeconds: 5,
        pollSeconds: 1,
        ...over,
    };
}

const stored = (cluster: FakeOpenBaoCluster, t: { mount: string; key: string }) => cluster.bao.kv.get(path(t))!.at(-1)!.data;

describe("KvCredentialProvider: the runbook's rotation (bao kv put, then kubectl rollout restart)", () => {
    test("first install: the migrations wrote the stack file's value before the APIs started, so nothing is written or restarted", async () => {
        const { cluster, provider } = world("first");
        const { outs } = await provider.create(inputs("first"));
        assert.deepEqual(outs!.written, []);
        assert.deepEqual(outs!.restarted, []);
        assert.equal(cluster.bao.kv.get(path(NVCF_API))!.length, 1, "no new version");
        assert.equal(cluster.deployments.get("nvcf/nvcf-api")!.restarts, 0);
    });

    test("a changed key: both places written at the active member and read back, then both readers restarted and rolled out", async () => {
        const { cluster, provider, said } = world("first");
        cluster.bao.leader = "openbao-server-1";
        const old = await provider.create(inputs("first"));
        assert.equal((await provider.diff("id", old.outs!, inputs("second"))).changes, true);
        const { outs } = await provider.update("id", old.outs!, inputs("second"));
        assert.deepEqual(outs!.written, [
            "services/nvcf-api/kv/sidecars/image-pull-secret",
            "services/nvct-api/kv/sidecars/image-pull-secret",
        ]);
        assert.deepEqual(outs!.restarted, ["nvcf/nvcf-api", "nvcf/nvct-api"]);
        for (const t of [NVCF_API, NVCT_API]) assert.deepEqual(stored(cluster, t), { secret: auth("second") });
        const writes = cluster.bao.requests.filter((r) => r.method === "POST");
        assert.deepEqual(
            writes.map((r) => r.pod),
            ["openbao-server-1", "openbao-server-1"],
            "written at the leader",
        );
        for (const name of ["nvcf-api", "nvct-api"]) {
            const d = cluster.deployments.get(`nvcf/${name}`)!;
            assert.equal(d.restarts, 1);
            assert.ok(d.annotations["kubectl.kubernetes.io/restartedAt"]);
            assert.equal(d.observedGeneration, d.generation, `${name} rolled out`);
        }
        assert.ok(!said.join("\n").includes(auth("second")), "the value is never said");
        assert.ok(said.some((l) => /restarting deployment nvcf\/nvcf-api: nvcf-api-old-0, nvcf-api-old-1 started before/.test(l)));
    });

    test("a second run with nothing changed writes and restarts nothing", async () => {
        const { cluster, provider } = world("first");
        const first = await provider.update("id", (await provider.create(inputs("first"))).outs!, inputs("second"));
        assert.equal((await provider.diff("id", first.outs!, inputs("second"))).changes, false);
        const again = await provider.update("id", first.outs!, inputs("second"));
        assert.deepEqual([again.outs!.written, again.outs!.restarted], [[], []]);
        assert.equal(cluster.deployments.get("nvcf/nvcf-api")!.restarts, 1);
    });

    test("stopped after the write, before the restart: the next run writes nothing and restarts the readers", async () => {
        const { cluster, provider } = world("first");
        // The run that stopped: the API server refused the restart.
        const refuse = cluster.refuse(/PATCH \/apis\/apps\/v1\/namespaces\/nvcf\/deployments\/nvcf-api/, 1);
        await assert.rejects(
            provider.update("id", {} as KvCredentialOutputs, inputs("second")),
            /could not restart deployment nvcf\/nvcf-api: HTTP 500/,
        );
        assert.equal(refuse.hit, 1);
        assert.deepEqual(stored(cluster, NVCF_API), { secret: auth("second") }, "written before the stop");
        const { outs } = await provider.update("id", {} as KvCredentialOutputs, inputs("second"));
        assert.deepEqual(outs!.written, []);
        assert.deepEqual(outs!.restarted, ["nvcf/nvcf-api", "nvcf/nvct-api"]);
    });

    test("a rollout that does not finish stops with what was done and what to look at; the rerun waits without restarting again", async () => {
        const { cluster, provider } = world("first");
        cluster.holdRollouts = true;
        await assert.rejects(
            provider.update("id", {} as KvCredentialOutputs, inputs("second", { timeoutSeconds: 0 })),
            /the sidecar image-pull credential: the credential is written, but deployment nvcf\/nvcf-api has not rolled out after 0 s \(.*\); see kubectl -n nvcf rollout status deploy\/nvcf-api, then run pulumi up again to finish/,
        );
        cluster.holdRollouts = false;
        const { outs } = await provider.update("id", {} as KvCredentialOutputs, inputs("second"));
        assert.equal(cluster.deployments.get("nvcf/nvcf-api")!.restarts, 1, "not restarted twice");
        assert.deepEqual(outs!.restarted, ["nvcf/nvcf-api", "nvcf/nvct-api"], "the one it waited for, and the other");
    });

    test("a reader release without a Deployment stops up after the write, naming it (a restart never silently skipped)", async () => {
        const { cluster, provider } = world("first");
        cluster.deployments.delete("nvcf/nvct-api");
        await assert.rejects(
            provider.update("id", {} as KvCredentialOutputs, inputs("second")),
            /the credential is written, but release nvct-api has no Deployment in nvcf to restart/,
        );
    });

    test("no active member: nothing is written, and the message says what to look at", async () => {
        const { cluster, provider } = world("first");
        cluster.bao.leader = undefined;
        await assert.rejects(
            provider.update("id", {} as KvCredentialOutputs, inputs("second")),
            /the sidecar image-pull credential: no openbao-server member says it leads, so nothing was written/,
        );
        assert.equal(cluster.bao.kv.get(path(NVCF_API))!.length, 1);
    });

    test("a refused token: the write fails naming the place and the cause, nothing restarted", async () => {
        const { cluster, provider } = world("first");
        cluster.bao.inject(/POST services\/nvcf-api\/kv\/data/, { status: 403, body: { errors: ["permission denied"] } });
        await assert.rejects(
            provider.update("id", {} as KvCredentialOutputs, inputs("second")),
            /writing services\/nvcf-api\/kv\/sidecars\/image-pull-secret failed: .*403 \(permission denied\).*Nothing was restarted yet; run pulumi up again to finish\./,
        );
        assert.equal(cluster.deployments.get("nvcf/nvcf-api")!.restarts, 0);
    });

    test("refresh: a value changed by hand shows as drifted, and the next up writes the stack file's value again", async () => {
        const { cluster, provider } = world("first");
        const { outs } = await provider.create(inputs("first"));
        cluster.bao.kv.get(path(NVCT_API))!.push({ data: { secret: auth("by-hand") }, created_time: new Date().toISOString() });
        const read = await provider.read("id", outs!);
        assert.deepEqual(read.props!.drifted, ["services/nvct-api/kv/sidecars/image-pull-secret"]);
        assert.equal((await provider.diff("id", read.props!, inputs("first"))).changes, true);
        const fixed = await provider.update("id", read.props!, inputs("first"));
        assert.deepEqual(fixed.outs!.written, ["services/nvct-api/kv/sidecars/image-pull-secret"]);
        assert.deepEqual(stored(cluster, NVCT_API), { secret: auth("first") });
    });

    test("check: a value that is not a raw docker auth string is refused before anything is written", async () => {
        const { provider } = world();
        const configJson = Buffer.from('{"auths":{}}').toString("base64");
        const { failures } = await provider.check(inputs("x"), inputs("x", { data: { secret: configJson } }));
        assert.match(
            failures![0].reason,
            /field secret must be base64\("<user>:<key>"\) \(a raw docker auth string\), but it is base64 of a JSON document/,
        );
        assert.doesNotMatch(failures![0].reason, new RegExp(configJson));
    });
});
