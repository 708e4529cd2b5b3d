import assert from "node:assert/strict";
import { after, before, beforeEach, describe, test } from "node:test";
import * as pulumi from "@pulumi/pulumi";
import { GrantRevocationInputs, GrantRevocationProvider } from "../components/providers/openbao-grant-revocation";
import { ADMIN_ISSUER_GRANT } from "../lib/openbao/client";
import { FakeControlPlane } from "./support/fake-icms";
import { FakeOpenBao } from "./support/fake-openbao";
import { release, releases } from "./support/harness";
import { runDev } from "./support/runs";

const bao = new FakeOpenBao();
const kube = new FakeControlPlane();

function inputs(over: Partial<GrantRevocationInputs> = {}): GrantRevocationInputs {
    return {
        via: "address",
        address: bao.url,
        namespace: "vault-system",
        pod: "openbao-server-0",
        port: 8200,
        scheme: "http",
        tokenSource: "config",
        tokenSecret: { namespace: "vault-system", name: "openbao-server-root-token", key: "root_token" },
        insecureSkipVerify: false,
        timeoutSeconds: 2,
        retries: 1,
        ...over,
    };
}

async function provider(config: Record<string, string> = { "nvcf-self-managed:openbaoToken": bao.rootToken }) {
    const p = new GrantRevocationProvider({ retryDelayMs: 5 });
    await p.configure({ config: { get: (k: string) => config[k], require: (k: string) => config[k] } });
    return p;
}

/** What migration 10_setup_admin-issuer.sh leaves behind, plus neighbours that must survive. */
function seedGrant(): void {
    bao.store.get("auth/jwt/role")!.add("admin-issuer-proxy").add("nvcf-api-account-bootstrap");
    bao.store.get("sys/policies/acl")!.add("services-admin-issuer-proxy-jwt-sign-admin-issuer-proxy-rw").add("services-nvcf-api-rw");
    bao.store.get("services/nvcf-api/jwt/roles")!.add("admin-issuer-proxy").add("nvcf-api-admin");
}

const grantLeft = () =>
    [...bao.store.entries()].flatMap(([mount, names]) =>
        [...names].filter((n) => n.includes("admin-issuer-proxy")).map((n) => `${mount}/${n}`),
    );

before(async () => {
    await bao.start();
    await kube.start();
});
after(async () => {
    await bao.stop();
    await kube.stop();
});
beforeEach(() => bao.reset());

describe("revoking the admin issuer proxy's OpenBao grant", () => {
    test("deletes the three objects, verifies the lists, and leaves every other role and policy", async () => {
        seedGrant();
        const { id, outs } = await (await provider()).create(inputs());
        assert.equal(id, "admin-issuer-proxy-grant");
        assert.deepEqual(grantLeft(), []);
        assert.deepEqual([...bao.store.get("auth/jwt/role")!], ["nvcf-api-account-bootstrap"]);
        assert.deepEqual([...bao.store.get("services/nvcf-api/jwt/roles")!], ["nvcf-api-admin"]);
        assert.ok(bao.store.get("sys/policies/acl")!.has("services-nvcf-api-rw"));
        assert.deepEqual(
            outs!.revoked,
            ADMIN_ISSUER_GRANT.map((o) => o.path),
        );
        assert.deepEqual(outs!.remaining, []);
        assert.deepEqual(
            bao.requests.map((r) => `${r.method} ${r.path}`),
            [
                "DELETE auth/jwt/role/admin-issuer-proxy",
                "DELETE sys/policies/acl/services-admin-issuer-proxy-jwt-sign-admin-issuer-proxy-rw",
                "DELETE services/nvcf-api/jwt/roles/admin-issuer-proxy",
                "GET auth/jwt/role",
                "GET sys/policies/acl",
                "GET services/nvcf-api/jwt/roles",
            ],
        );
        for (const r of bao.requests) assert.equal(r.token, "root");
        assert.ok(!JSON.stringify(outs).includes('root"'), "no token in the outputs");
    });

    test("is idempotent: a second run, with nothing left to delete, succeeds", async () => {
        const p = await provider();
        await p.create(inputs());
        await p.create(inputs());
        assert.deepEqual(grantLeft(), []);
    });

    test("a run that deleted one object and then failed completes on the next run", async () => {
        seedGrant();
        // One failure for the first attempt and one for its retry.
        bao.inject(/^DELETE sys\/policies\/acl\//, { status: 500 }, 2);
        await assert.rejects(
            (await provider()).create(inputs()),
            /could not delete the ACL policy sys\/policies\/acl\/services-admin-issuer-proxy/,
        );
        assert.deepEqual(grantLeft().sort(), [
            "services/nvcf-api/jwt/roles/admin-issuer-proxy",
            "sys/policies/acl/services-admin-issuer-proxy-jwt-sign-admin-issuer-proxy-rw",
        ]);
        await (await provider()).create(inputs());
        assert.deepEqual(grantLeft(), []);
    });

    test("read reports a grant a migration recreated; the next up revokes it again", async () => {
        const p = await provider();
        const { id, outs } = await p.create(inputs());
        seedGrant();
        const read = await p.read(id, outs!);
        assert.deepEqual(read.props!.remaining.sort(), [
            "auth/jwt/role/admin-issuer-proxy",
            "services/nvcf-api/jwt/roles/admin-issuer-proxy",
            "sys/policies/acl/services-admin-issuer-proxy-jwt-sign-admin-issuer-proxy-rw",
        ]);
        assert.equal((await p.diff(id, read.props!, inputs())).changes, true);
        assert.equal((await p.diff(id, outs!, inputs())).changes, false);
        await p.update(id, read.props!, inputs());
        assert.deepEqual(grantLeft(), []);
    });

    test("a new revision of openbao-server (its migrations Job, a post-upgrade hook, recreates the grant) revokes again", async () => {
        const p = await provider();
        const { id, outs } = await p.create(inputs({ openbaoRevision: 1 }));
        // What the chart's migrations Job runs on every install and upgrade: migration 10 writes the grant back.
        seedGrant();
        assert.equal((await p.diff(id, outs!, inputs({ openbaoRevision: 1 }))).changes, false);
        assert.equal((await p.diff(id, outs!, inputs({ openbaoRevision: 2 }))).changes, true);
        const { outs: after } = await p.update(id, outs!, inputs({ openbaoRevision: 2 }));
        assert.deepEqual(grantLeft(), []);
        assert.deepEqual(after!.remaining, []);
        assert.equal(after!.openbaoRevision, 2);
    });

    test("a grant still listed after its deletes fails, naming what is left", async () => {
        const p = await provider();
        seedGrant();
        bao.deletesIgnored = true;
        await assert.rejects(
            p.create(inputs()),
            /the admin issuer proxy's grant is still in OpenBao after its deletion: auth\/jwt\/role\/admin-issuer-proxy, sys\/policies\/acl\/services-admin-issuer-proxy-jwt-sign-admin-issuer-proxy-rw, services\/nvcf-api\/jwt\/roles\/admin-issuer-proxy/,
        );
    });

    test("delete changes nothing in OpenBao (re-enabling the proxy lets the migration recreate the grant)", async () => {
        const p = await provider();
        const { id, outs } = await p.create(inputs());
        seedGrant();
        bao.requests.length = 0;
        await p.delete(id, outs!);
        assert.equal(bao.requests.length, 0);
        assert.equal(grantLeft().length, 3);
    });

    test("through the Kubernetes API: openbao-server-0:8200 via the pod proxy, the root token from its Secret", async () => {
        seedGrant();
        kube.podProxies.set("/api/v1/namespaces/vault-system/pods/openbao-server-0:8200/proxy", bao.url);
        kube.secrets.set("vault-system/openbao-server-root-token", { root_token: Buffer.from("root\n").toString("base64") });
        const p = await provider({ "nvcf-self-managed:kubeconfig": kube.kubeconfig() });
        await p.create(inputs({ via: "kubernetes", address: undefined, tokenSource: "kubernetes-secret" }));
        assert.deepEqual(grantLeft(), []);
        const viaKube = kube.requests.filter((r) => r.path.includes("/pods/openbao-server-0:8200/proxy/v1/"));
        assert.equal(viaKube.length, 6);
        for (const r of viaKube) assert.equal(r.authorization, `Bearer ${kube.kubeToken}`);
    });
});

describe("faults end with a clear error naming the object", () => {
    test("a wrong token (403)", async () => {
        seedGrant();
        const p = await provider({ "nvcf-self-managed:openbaoToken": "not-the-token" });
        await assert.rejects(p.create(inputs()), (err: Error) => {
            assert.match(
                err.message,
                /could not delete the JWT auth role auth\/jwt\/role\/admin-issuer-proxy: OpenBao answered 403 \(permission denied\): the token is wrong/,
            );
            assert.doesNotMatch(err.message, /not-the-token/);
            return true;
        });
        assert.equal(grantLeft().length, 3);
    });

    test("a sealed server (503)", async () => {
        bao.sealed = true;
        await assert.rejects(
            (await provider()).create(inputs()),
            /could not delete the JWT auth role .*503 \(Vault is sealed\): the server is sealed/,
        );
    });

    test("an unreachable server", async () => {
        await assert.rejects(
            (await provider()).create(inputs({ address: "http://127.0.0.1:9", retries: 0 })),
            /could not delete the JWT auth role auth\/jwt\/role\/admin-issuer-proxy: OpenBao at http:\/\/127\.0\.0\.1:9 could not be reached: .*ECONNREFUSED/,
        );
    });

    test("a timeout", async () => {
        bao.inject(/^DELETE auth\/jwt\/role/, { hang: true }, 5);
        await assert.rejects(
            // A fraction of a second: the deadline is the same code at any length, and the suite waits it out.
            (await provider()).create(inputs({ timeoutSeconds: 0.2, retries: 0 })),
            /could not delete the JWT auth role .*no answer within 200 ms/,
        );
    });

    test("no token configured and none asked from Kubernetes", async () => {
        await assert.rejects(
            (await provider({})).create(inputs()),
            /no OpenBao token: set it with `pulumi config set --secret openbaoToken/,
        );
    });

    test("the root-token Secret missing", async () => {
        kube.secrets.clear();
        const p = await provider({ "nvcf-self-managed:kubeconfig": kube.kubeconfig() });
        await assert.rejects(
            p.create(inputs({ tokenSource: "kubernetes-secret" })),
            /could not read OpenBao's root token from Secret vault-system\/openbao-server-root-token: HTTP 404/,
        );
    });

    test("the provider serializes and holds no token", async () => {
        const fresh = new GrantRevocationProvider();
        const serialized = await pulumi.runtime.serializeFunction(() => fresh);
        assert.ok(!serialized.text.includes("not-the-token") && !serialized.text.includes(kube.kubeToken));
    });
});

describe("the adminIssuerProxy.enabled switch in the program", () => {
    test("off: no admin-issuer-proxy release, a GrantRevocation after openbao-server, no token in its inputs", async () => {
        const run = await runDev({ adminIssuerProxy: { enabled: false } });
        assert.ok(!releases(run).some((r) => r.inputs.name === "admin-issuer-proxy"));
        const component = run.resources.find((r) => r.type === "nvcf:openbao:GrantRevocation");
        assert.ok(component, "the revocation component is declared");
        const revocation = run.resources.find((r) => r.type === "pulumi-nodejs:dynamic/nvcf:OpenBaoGrantRevocation")!;
        assert.ok(revocation.dependencies.includes(release(run, "openbao-server").urn));
        const rollout = run.resources.find((r) => r.type === "pulumi-nodejs:dynamic/nvcf:OpenBaoRollout");
        assert.ok(rollout && revocation.dependencies.includes(rollout.urn), "after the rollout, which restarts the members it talks to");
        // Every new revision of openbao-server reruns migration 10, so the revision is an input: a change revokes again.
        // The mock engine's releases report revision 1 (scripts/lib/mock-providers.ts).
        assert.equal(revocation.inputs.openbaoRevision, 1);
        assert.equal(revocation.parent, component.urn);
        assert.equal(revocation.inputs.via, "kubernetes");
        assert.equal(revocation.inputs.tokenSource, "kubernetes-secret");
        assert.ok(!String(revocation.inputs.__provider).includes("nvapi-test-key"));
    });

    test("off with an address and a token in stack config: the token stays in config, out of inputs", async () => {
        const { devConfig, runProgram, withConfig } = await import("./support/harness");
        const { config, secretKeys } = devConfig();
        const run = await runProgram(
            withConfig(config, {
                "nvcf-self-managed:controlPlane": { adminIssuerProxy: { enabled: false } },
                "nvcf-self-managed:openbaoAccess": { address: "https://openbao.example.com:8200" },
                "nvcf-self-managed:openbaoToken": "s.secret-root-token",
            }),
            [...secretKeys, "nvcf-self-managed:openbaoToken"],
        );
        const revocation = run.resources.find((r) => r.type === "pulumi-nodejs:dynamic/nvcf:OpenBaoGrantRevocation")!;
        assert.equal(revocation.inputs.via, "address");
        assert.equal(revocation.inputs.tokenSource, "config");
        assert.ok(!JSON.stringify(revocation.rawInputs).includes("s.secret-root-token"));
    });

    test("on (the default): the release, and no revocation", async () => {
        const run = await runDev();
        assert.ok(releases(run).some((r) => r.inputs.name === "admin-issuer-proxy"));
        assert.ok(!run.resources.some((r) => r.type === "nvcf:openbao:GrantRevocation"));
    });
});
