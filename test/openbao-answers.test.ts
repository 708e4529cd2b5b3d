/**
 * The in-process OpenBao fakes against a recording of the real server (test/fixtures/openbao-2.5.5.json,
 * written by `npm run record:openbao` from bao 2.5.5 with NVIDIA's JWT plugin): for every call the
 * program makes, a fake answers the real status, and nothing the real answer lacks (every field it
 * gives is one the real server gives, of the same type).
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, before, describe, it } from "node:test";
import { ADMIN_ISSUER_GRANT_PATHS, JWT_PLUGIN, OPENBAO_API } from "../components/contracts/openbao";
import type { RecordedAnswer } from "./e2e/record-openbao";
import { FakeOpenBao } from "./support/fake-openbao";
import { FakeOpenBaoMembers } from "./support/fake-openbao-members";

const RECORDING = path.join(__dirname, "fixtures", "openbao-2.5.5.json");
const recorded = (JSON.parse(fs.readFileSync(RECORDING, "utf8")) as { answers: Record<string, RecordedAnswer> }).answers;

/** The elements of a real array as one: an object with every field any element has (catalog entries differ: builtins have no SHA-256). */
function anyElement(real: unknown[]): unknown {
    if (!real.every((e) => e !== null && typeof e === "object" && !Array.isArray(e))) return real[0];
    const merged: Record<string, unknown> = {};
    for (const e of real as Record<string, unknown>[]) for (const [k, v] of Object.entries(e)) if (merged[k] == null) merged[k] = v;
    return merged;
}

/** Where `fake` has a field the real answer lacks, or of another type (arrays: each element against any real element). */
function extraFields(fake: unknown, real: unknown, at = "$"): string[] {
    if (fake === undefined || fake === null) return [];
    if (Array.isArray(fake)) {
        if (!Array.isArray(real)) return [`${at}: an array, the real answer has ${typeof real}`];
        return real.length === 0 ? [] : fake.flatMap((f, i) => extraFields(f, anyElement(real), `${at}[${i}]`));
    }
    if (typeof fake === "object") {
        if (real === null || typeof real !== "object" || Array.isArray(real))
            return [`${at}: an object, the real answer has ${JSON.stringify(real)}`];
        const r = real as Record<string, unknown>;
        return Object.entries(fake as Record<string, unknown>).flatMap(([k, v]) =>
            k in r ? extraFields(v, r[k], `${at}.${k}`) : [`${at}.${k}: not in the real answer`],
        );
    }
    return real === null || typeof real === typeof fake ? [] : [`${at}: ${typeof fake}, the real answer has ${typeof real}`];
}

function sameAsRecorded(name: string, answer: { status: number; body?: unknown }): void {
    const real = recorded[name];
    assert.ok(real, `no recorded answer ${name}`);
    assert.equal(answer.status, real.status, `${name} (${real.request}): status`);
    assert.deepEqual(extraFields(answer.body, real.body), [], `${name} (${real.request}): fields`);
}

describe("the fake OpenBao members answer as the recorded OpenBao 2.5.5 does", () => {
    const members = ["openbao-server-0", "openbao-server-1", "openbao-server-2"];
    const fake = () => new FakeOpenBaoMembers(members);
    const root = "root-token";

    it("seal status, health (active, standby, standbyok) and leader, unsealed", () => {
        const bao = fake();
        sameAsRecorded("sealStatus", bao.handle("openbao-server-0", "GET", OPENBAO_API.sealStatus, undefined));
        sameAsRecorded("health.active", bao.handle("openbao-server-0", "GET", OPENBAO_API.health, undefined));
        sameAsRecorded("health.standby", bao.handle("openbao-server-1", "GET", OPENBAO_API.health, undefined));
        sameAsRecorded("health.standbyok", bao.handle("openbao-server-1", "GET", `${OPENBAO_API.health}?standbyok=true`, undefined));
        sameAsRecorded("leader.active", bao.handle("openbao-server-0", "GET", OPENBAO_API.leader, undefined));
        sameAsRecorded("leader.standby", bao.handle("openbao-server-1", "GET", OPENBAO_API.leader, undefined));
    });

    it("a kv-v2 secret (the sidecar credential, the MEK): absent, written, read, a stale check-and-set, its custom metadata", () => {
        const bao = fake();
        const at = "services/nvcf-api/kv/data/sidecars/image-pull-secret";
        sameAsRecorded("kv.absent", bao.handle("openbao-server-0", "GET", at, root));
        sameAsRecorded("kv.write", bao.handle("openbao-server-0", "POST", at, root, { data: { secret: "JG9hdXRodG9rZW46a2V5" } }));
        sameAsRecorded("kv.read", bao.handle("openbao-server-0", "GET", at, root));
        sameAsRecorded(
            "kv.casMismatch",
            bao.handle("openbao-server-0", "POST", at, root, { options: { cas: 0 }, data: { secret: "eA==" } }),
        );
        const meta = "services/nvcf-api/kv/metadata/sidecars/image-pull-secret";
        sameAsRecorded("kv.metadataWrite", bao.handle("openbao-server-0", "POST", meta, root, { custom_metadata: { mark: "1" } }));
        const read = bao.handle("openbao-server-0", "GET", at, root);
        sameAsRecorded("kv.readWithMetadata", read);
        assert.deepEqual((read.body as { data: { metadata: { custom_metadata: unknown } } }).data.metadata.custom_metadata, { mark: "1" });
    });

    it("a restarted (sealed) member's seal status, health, leader and any other call", () => {
        const bao = fake();
        bao.staysSealed.add("openbao-server-1");
        bao.restart("openbao-server-1");
        sameAsRecorded("sealStatus.sealed", bao.handle("openbao-server-1", "GET", OPENBAO_API.sealStatus, undefined));
        sameAsRecorded("health.sealed", bao.handle("openbao-server-1", "GET", OPENBAO_API.health, undefined));
        sameAsRecorded("leader.sealed", bao.handle("openbao-server-1", "GET", OPENBAO_API.leader, undefined));
        sameAsRecorded("sealed", bao.handle("openbao-server-1", "GET", OPENBAO_API.mounts, root));
    });

    it("the token calls: Raft configuration, mounts, plugin catalog and its entries, step-down, and no token", () => {
        const bao = fake();
        sameAsRecorded("raftConfiguration", bao.handle("openbao-server-0", "GET", OPENBAO_API.raftConfiguration, root));
        sameAsRecorded("mounts", bao.handle("openbao-server-0", "GET", OPENBAO_API.mounts, root));
        sameAsRecorded("pluginCatalog", bao.handle("openbao-server-0", "GET", OPENBAO_API.pluginCatalog, root));
        const entry = `${OPENBAO_API.pluginCatalog}/secret/${JWT_PLUGIN}`;
        sameAsRecorded("pluginCatalogEntry.versioned", bao.handle("openbao-server-0", "GET", `${entry}?version=v1.3.7`, root));
        sameAsRecorded("permissionDenied", bao.handle("openbao-server-0", "GET", OPENBAO_API.mounts, undefined));
        sameAsRecorded("stepDown", bao.handle("openbao-server-1", "PUT", OPENBAO_API.stepDown, root));
    });
});

describe("the fake OpenBao of the grant revocation answers as the recorded OpenBao 2.5.5 does", () => {
    const bao = new FakeOpenBao();
    let url = "";
    before(async () => {
        await bao.start();
        url = bao.url;
    });
    after(() => bao.stop());

    const call = async (method: string, apiPath: string, token?: string) => {
        const res = await fetch(`${url}/v1/${apiPath}`, { method, headers: token ? { "X-Vault-Token": token } : {} });
        const text = await res.text();
        return { status: res.status, body: text ? JSON.parse(text) : undefined };
    };

    it("lists (empty and not), deletes (present and absent), reads, no token, an unmounted path, the seal status", async () => {
        sameAsRecorded("list.empty", await call("GET", "auth/jwt/role?list=true", bao.rootToken));
        bao.store.get("auth/jwt/role")!.add("admin-issuer-proxy");
        bao.store.get("services/nvcf-api/jwt/roles")!.add("admin-issuer-proxy");
        sameAsRecorded("list.authRoles", await call("GET", "auth/jwt/role?list=true", bao.rootToken));
        sameAsRecorded("list.policies", await call("GET", `${OPENBAO_API.aclPolicies}?list=true`, bao.rootToken));
        sameAsRecorded("list.secretRoles", await call("GET", "services/nvcf-api/jwt/roles?list=true", bao.rootToken));
        sameAsRecorded("delete", await call("DELETE", ADMIN_ISSUER_GRANT_PATHS.authRole, bao.rootToken));
        sameAsRecorded("delete.absent", await call("DELETE", ADMIN_ISSUER_GRANT_PATHS.authRole, bao.rootToken));
        sameAsRecorded("read.absent", await call("GET", ADMIN_ISSUER_GRANT_PATHS.authRole, bao.rootToken));
        sameAsRecorded("permissionDenied", await call("GET", "auth/jwt/role?list=true"));
        sameAsRecorded("unmounted", await call("GET", "services/none/jwt/roles?list=true", bao.rootToken));
        sameAsRecorded("sealStatus", await call("GET", OPENBAO_API.sealStatus));
        bao.sealed = true;
        sameAsRecorded("sealStatus.sealed", await call("GET", OPENBAO_API.sealStatus));
        sameAsRecorded("sealed", await call("GET", "auth/jwt/role?list=true", bao.rootToken));
    });
});

describe("the field check itself", () => {
    it("names a field the real answer lacks, a type it does not have, and passes a subset", () => {
        assert.deepEqual(extraFields({ a: 1, b: [{ c: "x" }] }, { a: 2, b: [{ c: "y", d: 1 }], e: true }), []);
        assert.deepEqual(extraFields({ a: "1", z: 1 }, { a: 2 }), [
            "$.a: string, the real answer has number",
            "$.z: not in the real answer",
        ]);
        assert.deepEqual(extraFields({ b: [{ q: 1 }] }, { b: [{ c: 1 }] }), ["$.b[0].q: not in the real answer"]);
    });
});
