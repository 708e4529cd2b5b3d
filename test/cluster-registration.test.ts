import assert from "node:assert/strict";
import { after, before, beforeEach, describe, test } from "node:test";
import * as pulumi from "@pulumi/pulumi";
import {
    ClusterRegistrationInputs,
    ClusterRegistrationOutputs,
    ClusterRegistrationProvider,
} from "../components/providers/cluster-registration";
import { jwksHash } from "../lib/cluster-access/oidc-discovery";
import { FakeControlPlane } from "./support/fake-icms";

const fake = new FakeControlPlane();

function inputs(over: Partial<ClusterRegistrationInputs> = {}): ClusterRegistrationInputs {
    return {
        clusterName: "gpu-a",
        ncaId: "nca-1",
        region: "us-west-1",
        cloudProvider: "ON-PREM",
        icmsUrl: fake.icmsUrl,
        icmsHostHeader: "sis.nvcf.test",
        apiKeysUrl: fake.icmsUrl,
        apiKeysHostHeader: "api-keys.nvcf.test",
        kubeconfigSource: "compute-plane",
        timeoutSeconds: 2,
        retries: 2,
        ...over,
    };
}

/** A provider configured the way the engine does it, from stack config. */
async function provider(config: Record<string, string> = {}): Promise<ClusterRegistrationProvider> {
    const p = new ClusterRegistrationProvider({ retryDelayMs: 5 });
    const all: Record<string, string> = {
        "nvcf-self-managed:computePlaneKubeconfigs": JSON.stringify({ "gpu-a": fake.kubeconfig(), "gpu-b": fake.kubeconfig() }),
        ...config,
    };
    await p.configure({ config: { get: (k: string) => all[k], require: (k: string) => all[k] } });
    return p;
}

const icmsCalls = () => fake.requests.filter((r) => r.server === "icms");

before(() => fake.start());
after(() => fake.stop());
beforeEach(() => {
    fake.reset();
    fake.jwks = JSON.stringify({ keys: [{ kty: "RSA", kid: "key-1", n: "abc", e: "AQAB" }] });
});

describe("create: what `nvcf-cli init` and `cluster register` do", () => {
    test("mints an admin token, discovers issuer and JWKS through the kubeconfig, registers, returns the IDs", async () => {
        const p = await provider();
        const result = await p.create(inputs());
        const [mint, register] = icmsCalls();
        assert.deepEqual(
            [mint.method, mint.path, mint.host, mint.authorization, mint.body],
            ["POST", "/v1/admin/keys", "api-keys.nvcf.test", undefined, "{}"],
        );
        const kube = fake.requests.filter((r) => r.server === "kube");
        assert.deepEqual(
            kube.map((r) => r.path),
            ["/.well-known/openid-configuration", "/openid/v1/jwks"],
        );
        for (const r of kube) assert.equal(r.authorization, `Bearer ${fake.kubeToken}`);
        assert.equal(register.method, "POST");
        assert.equal(register.path, "/v1/accounts/nca-1/clusters");
        assert.equal(register.host, "sis.nvcf.test");
        assert.equal(register.authorization, "Bearer admin-jwt-1");
        assert.deepEqual(JSON.parse(register.body), {
            clusterName: "gpu-a",
            clusterGroupName: "gpu-a",
            ncaId: "nca-1",
            cloudProvider: "ON-PREM",
            region: "us-west-1",
            nvcaVersion: "0.0.0",
            capabilities: ["DynamicGPUDiscovery"],
            jwks: fake.jwks,
            oidcIssuer: fake.issuer,
        });
        const stored = [...fake.clusters.values()][0];
        assert.equal(result.id, stored.clusterId);
        assert.equal(result.outs!.clusterId, stored.clusterId);
        assert.equal(result.outs!.clusterGroupId, stored.clusterGroupId);
        assert.equal(result.outs!.oidcIssuer, fake.issuer);
        assert.equal(result.outs!.jwksHash, jwksHash(fake.jwks));
        assert.ok(!JSON.stringify(result.outs!).includes("admin-jwt"), "no token in the outputs");
    });

    test("uses the configured token instead of minting one (installs without the admin issuer proxy)", async () => {
        fake.validTokens.add("idp-token");
        const p = await provider({ "nvcf-self-managed:nvcfAdminToken": "idp-token" });
        await p.create(inputs());
        assert.deepEqual(
            icmsCalls().map((r) => r.path),
            ["/v1/accounts/nca-1/clusters"],
        );
        assert.equal(icmsCalls()[0].authorization, "Bearer idp-token");
    });

    test("adopts an existing registration of the same name and refreshes its JWKS (--ignore-existing)", async () => {
        const old = fake.seed({
            clusterName: "gpu-a",
            ncaId: "nca-1",
            region: "us-west-1",
            cloudProvider: "ON-PREM",
            jwks: JSON.stringify({ keys: [{ kid: "stale" }] }),
            oidcIssuer: "old",
        });
        const result = await (await provider()).create(inputs());
        assert.deepEqual(
            icmsCalls().map((r) => `${r.method} ${r.path}`),
            [
                "POST /v1/admin/keys",
                "POST /v1/accounts/nca-1/clusters",
                "GET /v1/accounts/nca-1/clusters",
                `PUT /v1/nvca/clusters/${old.clusterId}/jwks`,
            ],
        );
        assert.equal(result.id, old.clusterId);
        assert.equal(result.outs!.clusterGroupId, old.clusterGroupId);
        assert.equal(fake.clusters.get(old.clusterId)!.jwks, fake.jwks);
        assert.equal(fake.clusters.size, 1);
    });

    test("a create whose answer was lost is safe to run again: the rerun adopts, nothing is registered twice", async () => {
        // ICMS stores the cluster, then the answer fails (a 503 from the gateway); the retry finds it.
        fake.inject("icms", /^POST \/v1\/accounts\/nca-1\/clusters$/, { status: 503, afterHandling: true });
        const result = await (await provider()).create(inputs());
        assert.equal(fake.clusters.size, 1);
        assert.equal(result.id, [...fake.clusters.values()][0].clusterId);
    });

    test("a connection reset is retried", async () => {
        fake.inject("icms", /^POST \/v1\/accounts/, { reset: true });
        const result = await (await provider()).create(inputs());
        assert.equal(fake.clusters.size, 1);
        assert.equal(result.outs!.clusterName, "gpu-a");
    });
});

describe("create: bad input and faults end with a message naming the cluster and the cause", () => {
    const failsWith = async (promise: Promise<unknown>, ...patterns: RegExp[]) => {
        await assert.rejects(promise, (err: Error) => {
            for (const p of patterns) assert.match(err.message, p);
            assert.doesNotMatch(err.message, /admin-jwt|kube-sa-token/, "no token in the message");
            return true;
        });
    };

    test("412: a name over 32 characters", async () => {
        const p = await provider({ "nvcf-self-managed:computePlaneKubeconfigs": JSON.stringify({ ["g".repeat(33)]: fake.kubeconfig() }) });
        await failsWith(
            p.create(inputs({ clusterName: "g".repeat(33) })),
            /cluster registration of g{33} \(register\) failed/,
            /32 characters/,
            /HTTP 412/,
        );
    });

    test("409: the JWKS is registered to another cluster", async () => {
        fake.seed({
            clusterName: "other",
            ncaId: "nca-1",
            region: "us-west-1",
            cloudProvider: "ON-PREM",
            jwks: fake.jwks,
            oidcIssuer: "x",
        });
        await failsWith(
            (await provider()).create(inputs()),
            /gpu-a/,
            /HTTP 409/,
            /already registered by cluster cluster-/,
            /deregister it first/,
        );
        assert.equal(fake.clusters.size, 1);
    });

    test("400: a region ICMS does not allow", async () => {
        await failsWith(
            (await provider()).create(inputs({ region: "mars-1" })),
            /gpu-a/,
            /HTTP 400/,
            /mars-1 region is not one of the supported regions/,
        );
    });

    test("a 5xx that persists is retried a bounded number of times, then fails", async () => {
        fake.inject("icms", /^POST \/v1\/accounts/, { status: 502 }, 10);
        await failsWith((await provider()).create(inputs({ retries: 2 })), /gpu-a/, /HTTP 502/);
        assert.equal(icmsCalls().filter((r) => r.path === "/v1/accounts/nca-1/clusters").length, 3);
        assert.equal(fake.clusters.size, 0);
    });

    test("a timeout", async () => {
        fake.inject("icms", /^POST \/v1\/accounts/, { hang: true }, 10);
        // A fraction of a second: the deadline is the same code at any length, and the suite waits it out.
        await failsWith((await provider()).create(inputs({ timeoutSeconds: 0.2, retries: 0 })), /gpu-a/, /no answer within 200 ms/);
    });

    test("an unreachable GPU API server", async () => {
        const kubeconfig = fake.kubeconfig().replace(fake.kubeUrl, "http://127.0.0.1:9");
        const p = await provider({ "nvcf-self-managed:computePlaneKubeconfigs": JSON.stringify({ "gpu-a": kubeconfig }) });
        await failsWith(p.create(inputs({ retries: 0 })), /gpu-a/, /openid-configuration/, /ECONNREFUSED/);
        assert.equal(icmsCalls().length, 0, "nothing is sent to ICMS");
    });

    test("a kubeconfig without the named context", async () => {
        await failsWith((await provider()).create(inputs({ kubeContext: "missing" })), /gpu-a/, /no context missing/);
    });

    test("no kubeconfig for the cluster", async () => {
        await failsWith(
            (await provider()).create(inputs({ clusterName: "gpu-z" })),
            /gpu-z/,
            /computePlaneKubeconfigs has no entry for gpu-z/,
        );
    });

    test("a token ICMS refuses (401)", async () => {
        const p = await provider({ "nvcf-self-managed:nvcfAdminToken": "wrong" });
        await failsWith(p.create(inputs()), /gpu-a/, /HTTP 401/, /cluster-management scope/);
    });
});

describe("read, diff, update, delete", () => {
    async function registered(): Promise<{ p: ClusterRegistrationProvider; outs: ClusterRegistrationOutputs; id: string }> {
        const p = await provider();
        const { id, outs } = await p.create(inputs());
        fake.requests.length = 0;
        return { p, id, outs: outs! };
    }

    test("read returns the registration, and no ID once ICMS no longer has it (drift)", async () => {
        const { p, id, outs } = await registered();
        assert.equal((await p.read(id, outs)).id, id);
        fake.clusters.clear();
        assert.equal((await p.read(id, outs)).id, "");
    });

    test("diff: nothing changed, no change", async () => {
        const { p, id, outs } = await registered();
        assert.deepEqual(await p.diff(id, outs, inputs()), { changes: false });
    });

    test("diff and update: a rotated service-account key is PUT, the cluster ID stays", async () => {
        const { p, id, outs } = await registered();
        fake.jwks = JSON.stringify({ keys: [{ kty: "RSA", kid: "key-2", n: "def", e: "AQAB" }] });
        const diff = await p.diff(id, outs, inputs());
        assert.equal(diff.changes, true);
        assert.equal(diff.replaces, undefined);
        const updated = await p.update(id, outs, inputs());
        assert.ok(icmsCalls().some((r) => r.method === "PUT" && r.path === `/v1/nvca/clusters/${id}/jwks`));
        assert.equal(fake.clusters.get(id)!.jwks, fake.jwks);
        assert.equal(updated.outs!.clusterId, id);
        assert.equal(updated.outs!.jwksHash, jwksHash(fake.jwks));
    });

    test("diff: a new name, NCA ID or region is a replacement, deleting the old row first", async () => {
        const { p, id, outs } = await registered();
        for (const change of [{ clusterName: "gpu-b" }, { ncaId: "nca-2" }, { region: "us-east-1" }]) {
            const diff = await p.diff(id, outs, inputs(change));
            assert.deepEqual(diff.replaces, Object.keys(change));
            assert.equal(diff.deleteBeforeReplace, true);
        }
    });

    test("delete deregisters; a cluster ICMS no longer has counts as deleted", async () => {
        const { p, id, outs } = await registered();
        await p.delete(id, outs);
        assert.equal(fake.clusters.size, 0);
        assert.ok(icmsCalls().some((r) => r.method === "DELETE" && r.path === `/v1/accounts/nca-1/clusters/${id}`));
        await p.delete(id, outs);
    });

    test("delete with workloads still running says what to drain", async () => {
        const { p, id, outs } = await registered();
        fake.clusters.get(id)!.activeInstances = true;
        await assert.rejects(p.delete(id, outs), /gpu-a \(deregister\) failed: .*active instances.*Undeploy the functions and tasks/);
        assert.equal(fake.clusters.size, 1);
    });

    test("delete under another account's NCA ID names the account, not running workloads (ICMS answers 409 for both)", async () => {
        const { p, id, outs } = await registered();
        fake.clusters.get(id)!.ncaId = "nca-other";
        await assert.rejects(p.delete(id, outs), (err: Error) => {
            assert.match(err.message, /registered under another NCA ID than nca-1 .*Check registration\.ncaId/);
            assert.doesNotMatch(err.message, /active instances/);
            return true;
        });
        assert.equal(fake.clusters.size, 1);
    });

    test("a listed cluster without its group (ICMS serializes null) does not break the listing", async () => {
        const { p, outs } = await registered();
        const first = fake.clusters.values().next().value!;
        const other = { ...first, clusterId: "cid-null-group", clusterName: "gpu-z", clusterGroupId: null, jwks: '{"keys":[]}' };
        fake.clusters.set("cid-null-group", other);
        // A rerun of the create adopts gpu-a from the listing that also holds gpu-z.
        const again = await p.create(inputs());
        assert.equal(again.outs!.clusterGroupId, outs.clusterGroupId);
    });

    test("delete never sends an empty NCA ID", async () => {
        const { p, id, outs } = await registered();
        await assert.rejects(p.delete(id, { ...outs, ncaId: "" }), /without an NCA ID/);
    });
});

describe("check and serialization", () => {
    test("check reports a bad name and tolerates unknown values during preview", async () => {
        const p = new ClusterRegistrationProvider();
        const bad = await p.check(inputs(), inputs({ clusterName: "GPU_A" }));
        assert.deepEqual(
            bad.failures?.map((f) => f.property),
            ["clusterName"],
        );
        const unknown = await p.check(inputs(), inputs({ clusterName: pulumi.runtime.unknownValue as unknown as string }));
        assert.deepEqual(unknown.failures, []);
    });

    test("the provider serializes, and a configured token never reaches the serialized text", async () => {
        const fresh = new ClusterRegistrationProvider();
        const serialized = await pulumi.runtime.serializeFunction(() => fresh);
        assert.ok(serialized.text.includes("ClusterRegistrationProvider") || serialized.text.length > 1000);
        for (const secret of ["idp-token", "admin-jwt", fake.kubeToken]) assert.ok(!serialized.text.includes(secret), secret);
    });
});
