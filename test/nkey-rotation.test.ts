import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { NATS_AUTH_CALLOUT_CREDS, NATS_CREDS } from "../lib/openbao/contract";
import { userNkey } from "../lib/nats/nkeys";
import { NkeyRotationProvider, type NkeyRotationInputs, type NkeyRotationOutputs } from "../components/providers/openbao-nkey-rotation";
import { NKEY_ROTATED_AT, NKEY_ROTATION_MARK } from "../lib/nats/nkey-secret";
import { heldBy, workersHoldingKey } from "../lib/nats/workers";
import type { ConnzConnection } from "../lib/nats/contract";
import { failed, health } from "../lib/health/checks";
import { sharedNkeyHolders } from "../lib/health/nats-nkey-check";
import { controlPlaneHealth } from "../components/plane/health-specs";
import { FakeNatsSystem } from "./support/fake-nats-system";
import { devRaw, parse } from "./support/raw-config";
import { OPENBAO_REACH } from "./support/openbao-reach";

// The shared NATS NKey's rotation after a switch to token mode: the workers it refuses for, the
// order the key is written in, and the readers restarted, against the fake API server, NATS
// monitoring and OpenBao members.

/** The readers as the program declares them, with the Deployment each release's chart makes. */
const READERS = [
    ["nats-system", "nvcf-nats-auth-callout-service", "nats-auth-callout-service"],
    ["nvcf", "nvcf-api", "api"],
    ["nvcf", "invocation", "invocation-service"],
    ["nvcf", "grpc-proxy", "grpc-proxy"],
    ["sis", "sis-api", "sis"],
    ["nats-system", "nats-box", "nats"],
] as const;

const chartKey = userNkey(Buffer.alloc(32, 7));
const creds = `${NATS_CREDS.mount}/data/${NATS_CREDS.key}`;
const callout = `${NATS_AUTH_CALLOUT_CREDS.mount}/data/${NATS_AUTH_CALLOUT_CREDS.key}`;

function conn(cid: number, name: string, user: string): ConnzConnection {
    return { cid, ip: `10.1.0.${cid}`, start: "2026-12-03T08:00:00Z", name, authorized_user: user, account: "APP" };
}

function world() {
    const kube = new FakeNatsSystem();
    const { cluster } = kube;
    let clock = Date.parse("2026-12-03T09:00:00Z");
    const now = () => new Date((clock += 1000));
    cluster.bao.now = now;
    cluster.now = now;
    kube.setKey(chartKey.seed, chartKey.publicKey);
    // Migration 03, at install: the Secret copied into both places.
    cluster.bao.kv.set(creds, [{ data: { key: chartKey.seed, public_key: chartKey.publicKey }, created_time: now().toISOString() }]);
    const calloutData = {
        nkey_seed: "SUCALLOUT",
        nkey_signature: "SACALLOUT",
        shared_worker_nkey_pub: chartKey.publicKey,
        shared_worker_account: "APP",
    };
    cluster.bao.kv.set(callout, [{ data: calloutData, created_time: now().toISOString() }]);
    clock += 3600_000;
    for (const [ns, name, release] of READERS) cluster.addDeployment(ns, name, release, "2026-12-03T09:30:00Z");
    const said: string[] = [];
    const provider = new NkeyRotationProvider({ kube, pollMs: 1, say: (l) => said.push(l), now: () => new Date(clock) });
    const stored = (path: string) => cluster.bao.kv.get(path)!.at(-1)!.data as Record<string, string>;
    const baoWrites = () => cluster.bao.requests.filter((r) => r.method === "POST").length;
    return { kube, cluster, provider, said, stored, baoWrites };
}

function inputs(rotation: number, o: Partial<NkeyRotationInputs> = {}): NkeyRotationInputs {
    return {
        ...OPENBAO_REACH,
        rotation,
        workerAuth: "token",
        force: false,
        readers: READERS.map(([namespace, , release]) => ({ namespace, release })),
        timeoutSeconds: 5,
        pollSeconds: 1,
        ...o,
    };
}

describe("the workers that may hold the shared NKey (/connz)", () => {
    test("a worker logged in with the key holds it; a token worker, the services and NVCA do not; another user cannot be placed", () => {
        const key = chartKey.publicKey;
        assert.equal(heldBy(conn(1, "worker_fv1_i1", key), key), "nkey");
        assert.equal(heldBy(conn(2, "worker_fv2_i2", "worker-fv2"), key), undefined);
        assert.equal(heldBy(conn(3, "grpc-proxy", key), key), undefined, "a control-plane service logs in with the key by design");
        assert.equal(heldBy(conn(4, "nvca-queue-client/cluster-a", "nvca"), key), undefined);
        assert.equal(heldBy(conn(5, "worker_fv3_i3", "[REDACTED]"), key), "unknown");
    });

    test("every page of every NATS server is read; a server that does not answer makes the answer unknown", async () => {
        const kube = new FakeNatsSystem();
        const key = chartKey.publicKey;
        kube.servers.set("nats-0", [conn(1, "grpc-proxy", key), conn(2, "worker_a_1", "worker-a"), conn(3, "worker_b_1", key)]);
        kube.servers.set("nats-1", [conn(7, "worker_c_1", key)]);
        const look = await workersHoldingKey(kube, key, 1);
        assert.ok(look.known);
        assert.deepEqual(
            look.held.map((h) => `${h.server}/${h.name}`),
            ["nats-0/worker_b_1", "nats-1/worker_c_1"],
        );
        assert.equal(kube.requests.filter((r) => r.includes("nats-0:8222/proxy/connz")).length, 3);
        kube.servers.set("nats-2", 500);
        const unknown = await workersHoldingKey(kube, key);
        assert.deepEqual(unknown, {
            known: false,
            why:
                "nats-2: /connz answered HTTP 500: " +
                JSON.stringify({ kind: "Status", apiVersion: "v1", status: "Failure", message: "injected", code: 500 }),
        });
        kube.servers.clear();
        assert.deepEqual(await workersHoldingKey(kube, key), {
            known: false,
            why: "no NATS pod (a pod with a nats container) in nats-system",
        });
    });
});

describe("NkeyRotationProvider: the control-plane operations' rotation as a resource", () => {
    test("declared at 0: the chart's key, nothing looked at, written or restarted", async () => {
        const { kube, cluster, provider, baoWrites } = world();
        const { outs } = await provider.create(inputs(0));
        assert.equal(outs!.publicKey, chartKey.publicKey);
        assert.deepEqual(outs!.restarted, []);
        assert.equal(baoWrites(), 0);
        assert.ok(!kube.requests.some((r) => r.includes("connz")));
        assert.ok(![...cluster.deployments.values()].some((d) => d.restarts > 0));
    });

    test("rotation 1 with no old worker: the Secret, then OpenBao, then the callout before the services; a rerun does nothing", async () => {
        const { kube, cluster, provider, said, stored } = world();
        kube.servers.set("nats-0", [conn(1, "nvcf-api", chartKey.publicKey), conn(2, "worker_fv_i", "worker-fv")]);
        const first = (await provider.create(inputs(0))).outs!;
        assert.equal((await provider.diff("id", first, inputs(1))).changes, true);
        const { outs } = await provider.update("id", first, inputs(1));
        const key = kube.key();
        assert.notEqual(key.publicKey, chartKey.publicKey);
        assert.match(key.seed, /^SU[A-Z2-7]{56}$/);
        assert.equal(outs!.publicKey, key.publicKey);
        assert.equal(kube.secret!.annotations[NKEY_ROTATION_MARK], "1");
        assert.equal(kube.secret!.annotations[NKEY_ROTATED_AT], outs!.rotatedAt);
        assert.deepEqual(stored(creds), { key: key.seed, public_key: key.publicKey });
        assert.deepEqual(stored(callout), {
            nkey_seed: "SUCALLOUT",
            nkey_signature: "SACALLOUT",
            shared_worker_nkey_pub: key.publicKey,
            shared_worker_account: "APP",
        });
        assert.deepEqual(
            outs!.restarted,
            READERS.map(([ns, name]) => `${ns}/${name}`),
        );
        // The Secret first (migration 03 copies it over OpenBao on every openbao-server install), then OpenBao.
        const order = kube.requests.filter((r) => r.startsWith("PATCH") || r.includes("/proxy/v1/services/all/kv/data"));
        assert.match(order[0], /^PATCH \/api\/v1\/namespaces\/nats-system\/secrets\/nats-nkeys$/);
        assert.ok(!said.join("\n").includes(key.seed), "the seed is never said");

        assert.equal((await provider.diff("id", outs!, inputs(1))).changes, false);
        assert.equal((await provider.diff("id", outs!, inputs(1, { force: true }))).changes, false, "force alone changes nothing");
        const version = kube.secret!.resourceVersion;
        const again = await provider.update("id", outs!, inputs(1));
        assert.equal(kube.secret!.resourceVersion, version, "no second key");
        assert.deepEqual(again.outs!.restarted, []);
        assert.equal(cluster.bao.kv.get(creds)!.length, 2);
    });

    test("a worker that logged in with the key: refused, naming it, with nothing written; force rotates anyway", async () => {
        const { kube, provider, baoWrites } = world();
        kube.servers.set("nats-0", [conn(4, "worker_fv9_i9", chartKey.publicKey)]);
        await assert.rejects(
            provider.update("id", {} as NkeyRotationOutputs, inputs(1)),
            new RegExp(
                "1 worker connection\\(s\\) may still hold the shared NKey, and a new key would cut them off: worker_fv9_i9 on nats-0 " +
                    "from 10\\.1\\.0\\.4 since 2026-12-03T08:00:00Z \\(logged in with the shared NKey\\); nothing was written\\. " +
                    "Wait until they are replaced \\(redeploy their functions\\), or set credentialRotation\\.natsNkeyForce: true",
            ),
        );
        assert.equal(kube.key().publicKey, chartKey.publicKey);
        assert.equal(baoWrites(), 0);
        const { outs } = await provider.update("id", {} as NkeyRotationOutputs, inputs(1, { force: true }));
        assert.notEqual(outs!.publicKey, chartKey.publicKey);
    });

    test("NATS not answering: cannot be known, refused with nothing written", async () => {
        const { kube, provider } = world();
        kube.servers.set("nats-0", 503);
        await assert.rejects(
            provider.update("id", {} as NkeyRotationOutputs, inputs(1)),
            /whether a worker still holds the shared NKey cannot be known: nats-0: \/connz answered HTTP 503: .*; nothing was written\. set credentialRotation\.natsNkeyForce: true/,
        );
        assert.equal(kube.key().publicKey, chartKey.publicKey);
    });

    test("stopped after the Secret, before OpenBao: the rerun makes no new key, writes OpenBao from the Secret and restarts", async () => {
        const { kube, cluster, provider, stored } = world();
        cluster.bao.inject(/POST services\/all\/kv\/data\/nats\/creds/, { status: 500, body: { errors: ["injected"] } });
        await assert.rejects(provider.update("id", {} as NkeyRotationOutputs, inputs(1)), /injected/);
        const written = kube.key();
        assert.notEqual(written.publicKey, chartKey.publicKey);
        assert.equal(stored(creds).public_key, chartKey.publicKey);
        const { outs } = await provider.update("id", {} as NkeyRotationOutputs, inputs(1));
        assert.deepEqual(kube.key(), written, "the key the stopped run made");
        assert.deepEqual(stored(creds), { key: written.seed, public_key: written.publicKey });
        assert.equal(outs!.restarted.length, READERS.length);
    });

    test("the Secret changed between the read and the write (409): stops before OpenBao", async () => {
        const { kube, provider, baoWrites } = world();
        const real = kube.request.bind(kube);
        kube.request = async (method, path, ...rest) => {
            if (method === "PATCH" && path.endsWith("/secrets/nats-nkeys")) kube.secret!.resourceVersion++;
            return real(method, path, ...rest);
        };
        await assert.rejects(
            provider.update("id", {} as NkeyRotationOutputs, inputs(1)),
            /could not write secret nats-system\/nats-nkeys: HTTP 409: .*run pulumi up again/,
        );
        assert.equal(kube.key().publicKey, chartKey.publicKey);
        assert.equal(baoWrites(), 0);
    });

    test("preview refuses a rotation in nkey mode and a counter that goes down", async () => {
        const { provider } = world();
        const nkey = await provider.check(inputs(0), inputs(1, { workerAuth: "nkey" }));
        assert.match(nkey.failures![0].reason, /natsNkeyRotations went up while nats\.workerAuth is nkey: .* switch to token first/);
        assert.deepEqual((await provider.check(inputs(1, { workerAuth: "nkey" }), inputs(1, { workerAuth: "nkey" }))).failures, []);
        const down = await provider.check(inputs(2), inputs(1));
        assert.match(down.failures![0].reason, /natsNkeyRotations went from 2 to 1: a rotation is not undone/);
    });

    test("a Secret that is not a key: a rotation stops naming it with nothing written; at 0 up goes on", async () => {
        const { kube, provider, baoWrites } = world();
        kube.secret!.data["user.key"] = Buffer.from("not a seed").toString("base64");
        await assert.rejects(
            provider.update("id", {} as NkeyRotationOutputs, inputs(1)),
            /^Error: the NATS NKey rotation: secret nats-system\/nats-nkeys does not hold a user NKey \(user\.key SU…, user\.pub U…\); nothing was written$/,
        );
        assert.equal(baoWrites(), 0);
        assert.deepEqual((await provider.create(inputs(0))).outs!.restarted, []);
    });

    test("refresh reads the Secret's key: a hand change shows as a changed public key", async () => {
        const { kube, provider } = world();
        const { outs } = await provider.create(inputs(0));
        const other = userNkey();
        kube.setKey(other.seed, other.publicKey);
        const read = await provider.read("id", outs!);
        assert.equal(read.props!.publicKey, other.publicKey);
    });
});

describe("the status of the shared NKey in token mode (nats-shared-nkey)", () => {
    test("information only: who still holds it, or that none does and when it was rotated; never a failure", async () => {
        const { kube, provider } = world();
        kube.servers.set("nats-0", [conn(3, "worker_fv1_i1", chartKey.publicKey), conn(4, "worker_fv2_i2", "worker-fv2")]);
        const held = await sharedNkeyHolders(kube);
        assert.equal(held.ok, true);
        assert.equal(
            held.detail,
            "1 worker connection(s) may still hold the shared NKey (worker_fv1_i1 on nats-0, since 2026-12-03T08:00:00Z): " +
                "rotate it with credentialRotation.natsNkeyRotations once they are replaced; the key is the chart's own, never rotated",
        );
        kube.servers.set("nats-0", [conn(4, "worker_fv2_i2", "worker-fv2")]);
        await provider.update("id", {} as NkeyRotationOutputs, inputs(1));
        const none = await sharedNkeyHolders(kube);
        assert.equal(none.ok, true);
        assert.match(
            none.detail,
            /^no worker holds the shared NKey on 1 NATS server\(s\); the key is rotated 2026-12-03T10:00:\d\d\.000Z \(rotation 1\)$/,
        );
    });

    test("what cannot be looked at is inconclusive: no NATS answer, no Secret, a Secret that is not a key", async () => {
        const { kube } = world();
        kube.servers.set("nats-0", 503);
        const down = await health(kube, { sharedNkey: true });
        const result = down.find((r) => r.name === "nats-shared-nkey")!;
        assert.equal(result.inconclusive, true);
        assert.equal(failed(result), false, "it holds neither the gate nor status");
        assert.match(result.detail, /cannot be known: nats-0: \/connz answered HTTP 503/);
        kube.secret!.data["user.pub"] = Buffer.from("not a key").toString("base64");
        const broken = (await health(kube, { sharedNkey: true })).find((r) => r.name === "nats-shared-nkey")!;
        assert.equal(broken.inconclusive, true);
        assert.match(broken.detail, /could not be looked for: secret nats-system\/nats-nkeys does not hold a user NKey/);
        kube.secret = undefined;
        const missing = await sharedNkeyHolders(kube);
        assert.deepEqual([missing.ok, missing.inconclusive], [false, true]);
        assert.match(missing.detail, /secret nats-system\/nats-nkeys does not exist/);
    });

    test("in the health gate and status only in token mode with NATS on, and off with its switch", () => {
        const spec = (controlPlane: Record<string, unknown>, healthGate: Record<string, unknown> = {}) => {
            const s = parse(devRaw({ controlPlane, values: { checks: { healthGate } } }));
            return controlPlaneHealth(s.controlPlane, s.checks, [], undefined);
        };
        const token = { nats: { workerAuth: "token", authCallout: { workerTokenAuth: { webhookUrl: "http://api.nvcf:8080/hook" } } } };
        assert.equal(spec({})?.sharedNkey, undefined, "nkey mode: every worker holds it by design");
        assert.equal(spec(token)?.sharedNkey, true);
        assert.equal(spec(token, { sharedNkey: false })?.sharedNkey, undefined);
    });
});
