import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { MEK_STORED_DATA } from "../lib/openbao/contract";
import { kidOfRotation, newJwk, readMek, rotateMek, rotationKid, uuidV1, type MekData } from "../lib/openbao/mek";
import {
    MEK_ROTATION_MARK,
    MekRotationProvider,
    type MekRotationInputs,
    type MekRotationOutputs,
} from "../components/providers/openbao-mek-rotation";
import type { Kube, KubeAnswer } from "../lib/kubernetes/client";
import { FakeOpenBaoCluster } from "./support/fake-openbao-cluster";
import { OPENBAO_REACH } from "./support/openbao-reach";

// NVIDIA's MEK rotation runbook: the key set it writes, and the provider against the fake OpenBao
// members and Deployments.

const set = (...keys: object[]) => Buffer.from(JSON.stringify({ keys })).toString("base64");
const decode = (b64: string) => JSON.parse(Buffer.from(b64, "base64").toString("utf8")).keys as { kid: string; k: string }[];

/** What migration 03 writes: one kid, its key in `keys`, another key under the same kid in `private_jwks`. */
function installed(kid = "fa85bab2-fccd-11f0-b875-82c3b2df389e"): MekData {
    return {
        keys: set(newJwk(kid)),
        current_kid: kid,
        jwe_mapping: JSON.stringify({ payload_jwe_kid: kid }),
        private_jwks: set(newJwk(kid)),
    };
}

describe("the MEK key set", () => {
    test("a new kid is a version 1 UUID carrying the time, as ESS requires of the current kid", () => {
        const kid = uuidV1(new Date("2026-12-03T10:00:00Z"), Buffer.alloc(8));
        assert.match(kid, /^[0-9a-f]{8}-[0-9a-f]{4}-1[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
        const [low, mid, high] = kid.split("-");
        const t = (BigInt(`0x${high.slice(1)}`) << 48n) | (BigInt(`0x${mid}`) << 32n) | BigInt(`0x${low}`);
        assert.equal(Number((t - 0x01b21dd213814000n) / 10000n), Date.parse("2026-12-03T10:00:00Z"));
        assert.notEqual(uuidV1(new Date()), uuidV1(new Date()), "random clock sequence and node");
    });

    test("a rotation's kid is a version 1 UUID of its time whose node names the rotation: found again in a key set, never another rotation's or migration 03's", () => {
        const at = new Date("2026-12-03T10:00:00Z");
        const kid = rotationKid(at, 2);
        assert.match(kid, /^[0-9a-f]{8}-[0-9a-f]{4}-1[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
        assert.equal(kid.slice(0, 18), uuidV1(at, Buffer.alloc(8)).slice(0, 18), "the time, as any kid of that instant");
        assert.ok(Number.parseInt(kid.slice(24, 26), 16) & 1, "the node's multicast bit: no MAC address");
        const installedKid = "fa85bab2-fccd-11f0-b875-82c3b2df389e";
        const later = rotationKid(new Date("2027-01-01T00:00:00Z"), 2);
        assert.notEqual(later, kid, "another instant, another clock sequence");
        assert.equal(kidOfRotation([kid, installedKid], 2), kid);
        assert.equal(kidOfRotation([rotationKid(at, 3), installedKid], 2), undefined);
        assert.equal(kidOfRotation([installedKid, uuidV1(at)], 2), undefined);
        const first = rotationKid(at, 1);
        assert.equal(kidOfRotation([later, first, installedKid], 1), first, "an older rotation's key, no longer current");
    });

    test("a rotation puts the new key first in keys and in private_jwks, each with its own material, and keeps every old key", () => {
        const before = installed();
        const after = rotateMek(before, "11111111-2222-1333-8444-555555555555");
        const keys = decode(after.keys);
        const priv = decode(after.private_jwks);
        assert.deepEqual(
            keys.map((k) => k.kid),
            ["11111111-2222-1333-8444-555555555555", "fa85bab2-fccd-11f0-b875-82c3b2df389e"],
        );
        assert.deepEqual(
            priv.map((k) => k.kid),
            keys.map((k) => k.kid),
        );
        assert.notEqual(keys[0].k, priv[0].k, "private_jwks is not a copy of keys (the runbook's copy would replace api-keys' old key)");
        assert.deepEqual(keys[1], decode(before.keys)[0], "the old key unchanged");
        assert.deepEqual(priv[1], decode(before.private_jwks)[0], "the old payload key unchanged");
        assert.equal(after.current_kid, "11111111-2222-1333-8444-555555555555");
        assert.deepEqual(JSON.parse(after.jwe_mapping), { payload_jwe_kid: "11111111-2222-1333-8444-555555555555" });
        assert.deepEqual(readMek({ ...after }).kids.length, 2);
    });

    test("a key set ESS or api-keys could not use is refused, naming the field, never the key", () => {
        const ok = installed();
        assert.throws(() => readMek({ ...ok, current_kid: "other" }), /current_kid other is not the first key of keys/);
        assert.throws(() => readMek({ ...ok, private_jwks: set(newJwk("x")) }), /private_jwks has no key for fa85bab2/);
        assert.throws(() => readMek({ ...ok, keys: "not base64 json" }), /keys is not base64 of a JSON JWK set/);
        assert.throws(() => readMek({ keys: ok.keys }), /field current_kid is missing/);
    });
});

const DEPLOYMENTS = [
    ["ess", "ess-api-deployment", "ess-api"],
    ["api-keys", "api-keys", "api-keys"],
    ["nvcf", "nvcf-api", "api"],
] as const;

function world() {
    const cluster = new FakeOpenBaoCluster();
    let clock = Date.parse("2026-12-03T09:00:00Z");
    const now = () => new Date((clock += 1000));
    cluster.bao.now = now;
    cluster.now = now;
    const path = `${MEK_STORED_DATA.mount}/data/${MEK_STORED_DATA.key}`;
    cluster.bao.kv.set(path, [{ data: { ...installed() }, created_time: new Date(clock).toISOString() }]);
    clock += 3600_000;
    for (const [ns, name, release] of DEPLOYMENTS) cluster.addDeployment(ns, name, release, "2026-12-03T09:30:00Z");
    const said: string[] = [];
    /** The provider in a process of its own (a new `pulumi up`), reaching the cluster through `kube`. */
    const over = (kube: Kube) => new MekRotationProvider({ kube, pollMs: 1, say: (l) => said.push(l), now: () => new Date(clock) });
    const provider = over(cluster);
    const stored = () => cluster.bao.kv.get(path)!.at(-1)!.data as unknown as MekData;
    return { cluster, provider, over, said, stored, path };
}

/**
 * The cluster as a process sees it that stops (killed, Ctrl-C, a CI job's timeout) right after its
 * `stopAfter`-th request reached the API server: that request takes effect, its answer is lost, and
 * the process sends nothing more.
 */
class StoppingKube implements Kube {
    readonly server: string;
    sent = 0;
    constructor(
        private readonly cluster: FakeOpenBaoCluster,
        private readonly stopAfter = Infinity,
    ) {
        this.server = cluster.server;
    }

    get stopped(): boolean {
        return this.sent >= this.stopAfter;
    }

    async request(...args: Parameters<Kube["request"]>): Promise<KubeAnswer> {
        if (this.stopped) throw new Error("the process stopped");
        this.sent++;
        const answer = await this.cluster.request(...args);
        if (this.stopped) throw new Error("the process stopped");
        return answer;
    }
}

function inputs(rotation: number): MekRotationInputs {
    return {
        ...OPENBAO_REACH,
        rotation,
        readers: DEPLOYMENTS.map(([namespace, , release]) => ({ namespace, release })),
        timeoutSeconds: 5,
        pollSeconds: 1,
    };
}

describe("MekRotationProvider: the runbook as a resource", () => {
    test("declared at 0 on an installed stack: reads the kids, writes and restarts nothing", async () => {
        const { cluster, provider } = world();
        const { outs } = await provider.create(inputs(0));
        assert.deepEqual(outs!.kids, ["fa85bab2-fccd-11f0-b875-82c3b2df389e"]);
        assert.deepEqual(outs!.restarted, []);
        assert.equal(cluster.bao.requests.filter((r) => r.method === "POST").length, 0);
    });

    test("rotation 1: a new current key, the old kept, the mark set, ESS then api-keys then nvcf-api restarted; a rerun adds nothing", async () => {
        const { cluster, provider, stored, said, path } = world();
        const first = (await provider.create(inputs(0))).outs!;
        assert.equal((await provider.diff("id", first, inputs(1))).changes, true);
        const { outs } = await provider.update("id", first, inputs(1));
        const kids = decode(stored().keys).map((k) => k.kid);
        assert.equal(kids.length, 2);
        assert.equal(kids[1], "fa85bab2-fccd-11f0-b875-82c3b2df389e");
        assert.equal(stored().current_kid, kids[0]);
        assert.equal(outs!.currentKid, kids[0]);
        assert.deepEqual(cluster.bao.kvCustomMetadata.get(path), { [MEK_ROTATION_MARK]: "1" });
        assert.deepEqual(outs!.restarted, ["ess/ess-api-deployment", "api-keys/api-keys", "nvcf/nvcf-api"]);
        assert.ok(!said.join("\n").includes(decode(stored().keys)[0].k), "no key material is said");

        assert.equal((await provider.diff("id", outs!, inputs(1))).changes, false);
        const again = await provider.update("id", outs!, inputs(1));
        assert.equal(decode(stored().keys).length, 2, "no second key");
        assert.deepEqual(again.outs!.restarted, []);
    });

    test("stopped after the write, before the restarts: the rerun adds no key and restarts the readers", async () => {
        const { cluster, provider, stored } = world();
        cluster.refuse(/PATCH \/apis\/apps\/v1\/namespaces\/ess\/deployments\/ess-api-deployment/, 1);
        await assert.rejects(
            provider.update("id", {} as MekRotationOutputs, inputs(1)),
            /could not restart deployment ess\/ess-api-deployment: HTTP 500/,
        );
        assert.equal(decode(stored().keys).length, 2);
        const { outs } = await provider.update("id", {} as MekRotationOutputs, inputs(1));
        assert.equal(decode(stored().keys).length, 2, "the mark says rotation 1 is done");
        assert.deepEqual(outs!.restarted, ["ess/ess-api-deployment", "api-keys/api-keys", "nvcf/nvcf-api"]);
    });

    test("stopped between the key write and its mark: the rerun finds the key written and only marks it; a second rerun changes nothing", async () => {
        const { cluster, provider, stored, path } = world();
        // OpenBao's active member sealed (restarted) between the two writes: its answer to the mark's write.
        cluster.bao.inject(/POST services\/all\/kv\/metadata\//, { status: 503, body: { errors: ["Vault is sealed"] } });
        await assert.rejects(provider.update("id", {} as MekRotationOutputs, inputs(1)), /503/);
        const written = decode(stored().keys).map((k) => k.kid);
        assert.equal(written.length, 2, "the new key is written");
        assert.equal(cluster.bao.kvCustomMetadata.get(path), undefined, "the mark is not");

        const { outs } = await provider.update("id", {} as MekRotationOutputs, inputs(1));
        assert.deepEqual(
            decode(stored().keys).map((k) => k.kid),
            written,
            "no other key: the one written is current",
        );
        assert.equal(outs!.currentKid, written[0]);
        assert.deepEqual(cluster.bao.kvCustomMetadata.get(path), { [MEK_ROTATION_MARK]: "1" });
        assert.deepEqual(outs!.restarted, ["ess/ess-api-deployment", "api-keys/api-keys", "nvcf/nvcf-api"]);

        const writes = cluster.bao.requests.filter((r) => r.method === "POST").length;
        const again = await provider.update("id", outs!, inputs(1));
        assert.equal(cluster.bao.requests.filter((r) => r.method === "POST").length, writes, "the second rerun writes nothing");
        assert.deepEqual(again.outs!.restarted, []);
        assert.equal(again.outs!.currentKid, written[0]);
    });

    test("stopped right after any one request of a rotation: the rerun ends with one new key, marked, each reader restarted once; another rerun changes nothing", async () => {
        const whole = world();
        const counted = new StoppingKube(whole.cluster);
        await whole.over(counted).update("id", {} as MekRotationOutputs, inputs(1));
        assert.ok(counted.sent > 10, `${counted.sent} requests in a whole run`);

        for (let k = 1; k <= counted.sent; k++) {
            const { cluster, over, stored, path } = world();
            const stopping = new StoppingKube(cluster, k);
            await over(stopping)
                .update("id", {} as MekRotationOutputs, inputs(1))
                .catch(() => undefined);
            assert.ok(stopping.stopped, `stopped after request ${k}`);

            const { outs } = await over(cluster).update("id", {} as MekRotationOutputs, inputs(1));
            const kids = decode(stored().keys).map((key) => key.kid);
            assert.equal(kids.length, 2, `stopped after request ${k}: one new key, not ${kids.length - 1}`);
            assert.equal(kids[1], "fa85bab2-fccd-11f0-b875-82c3b2df389e");
            assert.equal(outs!.currentKid, kids[0]);
            assert.deepEqual(cluster.bao.kvCustomMetadata.get(path), { [MEK_ROTATION_MARK]: "1" }, `stopped after request ${k}`);
            for (const [ns, name] of DEPLOYMENTS) {
                assert.equal(cluster.deployments.get(`${ns}/${name}`)!.restarts, 1, `stopped after request ${k}: ${ns}/${name}`);
            }

            const writes = cluster.bao.requests.filter((r) => r.method === "POST").length;
            const again = await over(cluster).update("id", outs!, inputs(1));
            assert.equal(cluster.bao.requests.filter((r) => r.method === "POST").length, writes, `stopped after request ${k}`);
            assert.deepEqual(again.outs!.restarted, []);
            assert.deepEqual(
                decode(stored().keys).map((key) => key.kid),
                kids,
            );
        }
    });

    test("the key set replaced right after the key write (a runbook rollback): no mark, and the rerun adds the rotation's key again", async () => {
        const { cluster, over, stored, path } = world();
        const backup = { ...stored() };
        // `bao kv put` of the backup by someone else, between the rotation's write and its read back.
        const rollback: Kube = {
            server: cluster.server,
            async request(method, at, ...rest) {
                const answer = await cluster.request(method, at, ...rest);
                if (method === "POST" && at.endsWith(`/v1/${path}`))
                    cluster.bao.kv.get(path)!.push({ data: backup, created_time: cluster.bao.now().toISOString() });
                return answer;
            },
        };
        await assert.rejects(
            over(rollback).update("id", {} as MekRotationOutputs, inputs(1)),
            /read back does not hold the new key first and every old one/,
        );
        assert.equal(cluster.bao.kvCustomMetadata.get(path), undefined, "rotation 1 is not marked done");

        const { outs } = await over(cluster).update("id", {} as MekRotationOutputs, inputs(1));
        const kids = decode(stored().keys).map((k) => k.kid);
        assert.equal(kids.length, 2);
        assert.equal(outs!.currentKid, kids[0]);
        assert.deepEqual(cluster.bao.kvCustomMetadata.get(path), { [MEK_ROTATION_MARK]: "1" });
    });

    test("a concurrent write between the read and the write: the check-and-set refuses it, no key is lost", async () => {
        const { cluster, provider, stored } = world();
        cluster.bao.inject(/POST services\/all\/kv\/data/, {
            status: 400,
            body: { errors: ["check-and-set parameter did not match the current version"] },
        });
        await assert.rejects(provider.update("id", {} as MekRotationOutputs, inputs(1)), /check-and-set parameter did not match/);
        assert.equal(decode(stored().keys).length, 1);
    });

    test("the counter going down is refused at preview: a rotation is not undone", async () => {
        const { provider } = world();
        const { failures } = await provider.check(inputs(2), inputs(1));
        assert.match(failures![0].reason, /credentialRotation\.mekRotations went from 2 to 1: a rotation is not undone/);
    });

    test("a stored key set that ESS could not use stops before any write", async () => {
        const { cluster, provider, path } = world();
        cluster.bao.kv.get(path)!.push({ data: { ...installed(), current_kid: "wrong" }, created_time: new Date().toISOString() });
        await assert.rejects(provider.update("id", {} as MekRotationOutputs, inputs(1)), /current_kid wrong is not the first key of keys/);
        assert.equal(cluster.bao.requests.filter((r) => r.method === "POST").length, 0);
    });
});
