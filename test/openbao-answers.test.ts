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
import { ADMIN_ISSUER_GRANT_PATHS, JWT_PLUGIN, OPENBAO_API } from "../lib/openbao/contract";
import type { RecordedAnswer } from "./e2e/record-openbao";
import { FakeOpenBao } from "./support/fake-openbao";
import { FakeOpenBaoMembers } from "./support/fake-openbao-members";
import { OPENBAO_VERSIONS } from "./support/openbao-answers";

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

/** The top-level fields of an answer's body, sorted. */
const fields = (answer: { body?: unknown }): string[] => Object.keys((answer.body ?? {}) as object).sort();

/**
 * A recorded 2.5.5 answer as OpenBao 2.6.2 gives it, by what changed in v2.6.0 (openbao/openbao):
 * dd957eaed3 took `performance_standby` out of HealthResponse (http/sys_health.go) and made
 * LeaderResponse's `is_self` omitempty and `active_time` omitzero, so a standby sends neither
 * (vault/logical_system.go); 873e6e3f44 renamed the seal status's `build_date` to `commit_date`.
 */
function as262(name: string): RecordedAnswer {
    const real = recorded[name];
    if (real.body === null || typeof real.body !== "object") return real;
    const gone = name.startsWith("health.") ? ["performance_standby"] : name === "leader.standby" ? ["is_self", "active_time"] : [];
    const renamed: Record<string, string> = { build_date: "commit_date" };
    const body = Object.entries(real.body).filter(([k]) => !gone.includes(k));
    return { ...real, body: Object.fromEntries(body.map(([k, v]) => [renamed[k] ?? k, v])) };
}

describe("the fake's seal status, health and leader have each version's fields, no more and no fewer", () => {
    const members = ["openbao-server-0", "openbao-server-1", "openbao-server-2"];

    for (const version of OPENBAO_VERSIONS) {
        it(`OpenBao ${version}: active, standby and sealed members, with the recorded statuses`, () => {
            const bao = new FakeOpenBaoMembers(members);
            bao.version = version;
            const exactly = (name: string, answer: { status: number; body?: unknown }) => {
                const real = version === "2.5.5" ? recorded[name] : as262(name);
                assert.equal(answer.status, real.status, `${version} ${name} (${real.request}): status`);
                assert.deepEqual(extraFields(answer.body, real.body), [], `${version} ${name} (${real.request}): field types`);
                assert.deepEqual(fields(answer), fields(real), `${version} ${name} (${real.request}): fields`);
            };
            exactly("sealStatus", bao.handle("openbao-server-0", "GET", OPENBAO_API.sealStatus, undefined));
            exactly("health.active", bao.handle("openbao-server-0", "GET", OPENBAO_API.health, undefined));
            exactly("health.standby", bao.handle("openbao-server-1", "GET", OPENBAO_API.health, undefined));
            exactly("health.standbyok", bao.handle("openbao-server-1", "GET", `${OPENBAO_API.health}?standbyok=true`, undefined));
            exactly("leader.active", bao.handle("openbao-server-0", "GET", OPENBAO_API.leader, undefined));
            exactly("leader.standby", bao.handle("openbao-server-1", "GET", OPENBAO_API.leader, undefined));
            bao.staysSealed.add("openbao-server-1");
            bao.restart("openbao-server-1");
            exactly("sealStatus.sealed", bao.handle("openbao-server-1", "GET", OPENBAO_API.sealStatus, undefined));
            exactly("health.sealed", bao.handle("openbao-server-1", "GET", OPENBAO_API.health, undefined));
            exactly("leader.sealed", bao.handle("openbao-server-1", "GET", OPENBAO_API.leader, undefined));
        });
    }

    it("OpenBao 2.6.2: a standby that knows no active member sends ha_enabled and its Raft indexes only", () => {
        const bao = new FakeOpenBaoMembers(members);
        bao.version = "2.6.2";
        bao.leader = undefined;
        const answer = bao.handle("openbao-server-1", "GET", OPENBAO_API.leader, undefined);
        assert.equal(answer.status, 200);
        assert.deepEqual(fields(answer), ["ha_enabled", "raft_applied_index", "raft_committed_index"]);
    });

    it("OpenBao 2.6.2: every other call answers as 2.5.5's recording (2.6.0 changed none of them)", () => {
        const bao = new FakeOpenBaoMembers(members);
        bao.version = "2.6.2";
        const root = "root-token";
        sameAsRecorded("raftConfiguration", bao.handle("openbao-server-0", "GET", OPENBAO_API.raftConfiguration, root));
        sameAsRecorded("mounts", bao.handle("openbao-server-0", "GET", OPENBAO_API.mounts, root));
        sameAsRecorded("pluginCatalog", bao.handle("openbao-server-0", "GET", OPENBAO_API.pluginCatalog, root));
        const entry = `${OPENBAO_API.pluginCatalog}/secret/${JWT_PLUGIN}?version=v1.3.7`;
        sameAsRecorded("pluginCatalogEntry.versioned", bao.handle("openbao-server-0", "GET", entry, root));
        sameAsRecorded("permissionDenied", bao.handle("openbao-server-0", "GET", OPENBAO_API.mounts, undefined));
        const at = "services/nvcf-api/kv/data/sidecars/image-pull-secret";
        sameAsRecorded("kv.absent", bao.handle("openbao-server-0", "GET", at, root));
        sameAsRecorded("kv.write", bao.handle("openbao-server-0", "POST", at, root, { data: { secret: "eA==" } }));
        sameAsRecorded("kv.read", bao.handle("openbao-server-0", "GET", at, root));
        sameAsRecorded("stepDown", bao.handle("openbao-server-1", "PUT", OPENBAO_API.stepDown, root));
        bao.staysSealed.add("openbao-server-2");
        bao.restart("openbao-server-2");
        sameAsRecorded("sealed", bao.handle("openbao-server-2", "GET", OPENBAO_API.mounts, root));
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
