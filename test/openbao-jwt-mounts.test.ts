import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { openBaoMembers } from "../lib/openbao/access";
import {
    captureJwtBaseline,
    jwtMounts,
    metadataProblems,
    mountProblems,
    targetCatalogEntry,
    verifyJwtMounts,
    type JwtBaseline,
    type JwtMount,
} from "../lib/openbao/jwt-mounts";
import { FakeOpenBaoCluster } from "./support/fake-openbao-cluster";
import { jwtMount } from "./support/fake-openbao-members";

// The 1.0.4 upgrade's JWT mount checks: metadata present, existing mounts keep their plugin
// version and SHA-256, new mounts on the target catalog entry. On data first, then against the
// fake members' sys/mounts and plugin catalog.

const OLD_SHA = "a".repeat(64);
const NEW_SHA = "b".repeat(64);
const mount = (path: string, over: Partial<JwtMount> = {}): JwtMount => ({
    path,
    uuid: `uuid-${path}`,
    pluginVersion: "v1.3.7",
    runningVersion: "v1.3.7",
    runningSha256: OLD_SHA,
    ...over,
});
const baseline = (...mounts: JwtMount[]): JwtBaseline => ({ capturedAt: "2026-12-01T00:00:00.000Z", newInstall: false, mounts });
const TARGET = { version: "v1.4.1", sha256: NEW_SHA };

function world() {
    const cluster = new FakeOpenBaoCluster(3);
    const members = openBaoMembers(cluster, { namespace: "vault-system", port: 8200, scheme: "http" }, { token: cluster.bao.rootToken });
    return { cluster, members, bao: cluster.bao };
}

describe("the JWT mount checks on data", () => {
    test("sys/mounts: only the JWT plugin's mounts, from data (or the legacy top level)", () => {
        const table = {
            "cubbyhole/": { type: "cubbyhole" },
            "services/nvcf-api/jwt/": jwtMount("v1.3.7", OLD_SHA, "u1"),
            "services/all/pki/": { type: "pki" },
        };
        const expected = [
            { path: "services/nvcf-api/jwt/", uuid: "u1", pluginVersion: "v1.3.7", runningVersion: "v1.3.7", runningSha256: OLD_SHA },
        ];
        assert.deepEqual(jwtMounts({ data: table, request_id: "x" }), expected);
        assert.deepEqual(jwtMounts(table), expected);
        assert.deepEqual(jwtMounts(undefined), []);
    });

    test("metadata: a mount without its running SHA-256, or pinned to a version it does not run", () => {
        assert.deepEqual(metadataProblems([mount("a/")]), []);
        assert.deepEqual(metadataProblems([mount("a/", { runningSha256: "" }), mount("b/", { pluginVersion: "v1.4.1" })]), [
            "mount a/ has no running SHA-256 (missing metadata)",
            "mount b/ is pinned to v1.4.1 but runs v1.3.7 (an incomplete plugin transition)",
        ]);
        assert.deepEqual(metadataProblems([mount("unpinned/", { pluginVersion: "" })]), [], "an unpinned mount is fine");
        // The pinned chart registers the plugin without -version: OpenBao reports "" for both (vault/mount.go, v2.5.5).
        const unversioned = mount("services/nvcf-api/jwt/", { pluginVersion: "", runningVersion: "" });
        assert.deepEqual(metadataProblems([unversioned]), [], "an unversioned plugin is identified by its SHA-256");
    });

    test("existing mounts keep their version and SHA-256; new ones are on the target entry", () => {
        const before = baseline(mount("services/nvcf-api/jwt/"));
        assert.deepEqual(mountProblems(before, [mount("services/nvcf-api/jwt/")], undefined), []);
        const added = mount("services/new/jwt/", { pluginVersion: "v1.4.1", runningVersion: "v1.4.1", runningSha256: NEW_SHA });
        assert.deepEqual(mountProblems(before, [mount("services/nvcf-api/jwt/"), added], TARGET), []);
        assert.deepEqual(
            mountProblems(
                before,
                [
                    mount("services/nvcf-api/jwt/", { pluginVersion: "v1.4.1", runningVersion: "v1.4.1", runningSha256: NEW_SHA }),
                    mount("services/stale/jwt/"),
                ],
                TARGET,
            ),
            [
                "mount services/nvcf-api/jwt/ ran v1.3.7 (SHA-256 aaaaaaaaaaaa) and now runs v1.4.1 (SHA-256 bbbbbbbbbbbb); existing mounts keep their plugin",
                "mount services/stale/jwt/ is new but runs v1.3.7 (SHA-256 aaaaaaaaaaaa), not the target catalog entry v1.4.1 (SHA-256 bbbbbbbbbbbb)",
            ],
        );
        assert.deepEqual(mountProblems(before, [], TARGET), ["mount services/nvcf-api/jwt/ of the baseline is gone"]);
        assert.deepEqual(mountProblems(before, [mount("services/nvcf-api/jwt/", { uuid: "another" })], TARGET), [
            "mount services/nvcf-api/jwt/ is another mount than the baseline's (its UUID changed)",
        ]);
        assert.deepEqual(mountProblems(before, [mount("services/nvcf-api/jwt/"), added], undefined), [
            "mount services/new/jwt/ is new, and the catalog has no vault-plugin-secrets-jwt entry to check it against",
        ]);
    });

    test("after a new install every mount is new, so each must be on the target entry", () => {
        const fresh: JwtBaseline = { capturedAt: "2026-12-01T00:00:00.000Z", newInstall: true, mounts: [] };
        assert.deepEqual(
            mountProblems(fresh, [mount("j/", { pluginVersion: "v1.4.1", runningVersion: "v1.4.1", runningSha256: NEW_SHA })], TARGET),
            [],
        );
        assert.equal(mountProblems(fresh, [mount("j/")], TARGET).length, 1);
    });
});

describe("the JWT mount checks against OpenBao's API", () => {
    test("the baseline is captured from the leader's sys/mounts; none before OpenBao is installed", async () => {
        const { members, bao } = world();
        const captured = await captureJwtBaseline(members, "openbao-server-0", new Date("2026-12-01T10:00:00Z"));
        assert.deepEqual(captured, {
            capturedAt: "2026-12-01T10:00:00.000Z",
            newInstall: false,
            mounts: [
                {
                    path: "services/nvcf-api/jwt/",
                    uuid: "uuid-nvcf-api",
                    pluginVersion: "v1.3.7",
                    runningVersion: "v1.3.7",
                    runningSha256: OLD_SHA,
                },
            ],
        });
        assert.ok(bao.requests.some((r) => r.pod === "openbao-server-0" && r.path === "sys/mounts"));
        assert.deepEqual(await captureJwtBaseline(members, undefined, new Date("2026-12-01T10:00:00Z")), {
            capturedAt: "2026-12-01T10:00:00.000Z",
            newInstall: true,
            mounts: [],
        });
    });

    test("missing metadata: no baseline, and OpenBao is not to be changed", async () => {
        const { members, bao } = world();
        bao.mounts["services/nvcf-api/jwt/"] = jwtMount("", "", "uuid-nvcf-api", "");
        await assert.rejects(
            captureJwtBaseline(members, "openbao-server-0"),
            /the JWT mounts cannot be the baseline of the plugin lifecycle, so OpenBao was not changed: mount services\/nvcf-api\/jwt\/ has no running SHA-256 \(missing metadata\)\. Finish or repair the plugin migration first/,
        );
    });

    test("the target entry is the newest registered version of the plugin, with its SHA-256 from plugin info", async () => {
        const { members, bao } = world();
        bao.catalog.push(
            { name: "vault-plugin-secrets-jwt", type: "secret", version: "v1.10.0", sha256: NEW_SHA, builtin: false },
            { name: "vault-plugin-secrets-jwt", type: "secret", version: "v1.9.2", sha256: "c".repeat(64), builtin: false },
        );
        assert.deepEqual(await targetCatalogEntry(members, "openbao-server-0"), { version: "v1.10.0", sha256: NEW_SHA });
        assert.ok(bao.requests.some((r) => r.path === "sys/plugins/catalog/secret/vault-plugin-secrets-jwt"));
    });

    test("after the bridge: the existing mount kept v1.3.7, a new mount on v1.4.1 passes; one on v1.3.7 fails, naming it", async () => {
        const { members, bao } = world();
        const before = await captureJwtBaseline(members, "openbao-server-0");
        bao.catalog.push({ name: "vault-plugin-secrets-jwt", type: "secret", version: "v1.4.1", sha256: NEW_SHA, builtin: false });
        bao.mounts["services/new/jwt/"] = jwtMount("v1.4.1", NEW_SHA, "uuid-new");
        assert.deepEqual(await verifyJwtMounts(members, "openbao-server-0", before), {
            kept: ["services/nvcf-api/jwt/"],
            added: ["services/new/jwt/"],
            target: { version: "v1.4.1", sha256: NEW_SHA },
        });
        bao.mounts["services/old/jwt/"] = jwtMount("v1.3.7", OLD_SHA, "uuid-old");
        await assert.rejects(verifyJwtMounts(members, "openbao-server-0", before), (err: Error) => {
            assert.match(
                err.message,
                /^the JWT mount check against the baseline of .* failed: mount services\/old\/jwt\/ is new but runs v1\.3\.7/,
            );
            assert.match(
                err.message,
                /Keep the plugin binaries the mounts ran, and repair the mounts with NVIDIA's OpenBao JWT plugin upgrade runbook/,
            );
            return true;
        });
    });
});

describe("the JWT mount checks on the pinned bundle's OpenBao (the plugin registered without a version)", () => {
    /** As deploy.sh registers it (`bao plugin register -sha256=... secret vault-plugin-secrets-jwt`) and migrations mount it. */
    function unversioned() {
        const w = world();
        w.bao.catalog.length = 0;
        w.bao.catalog.push({ name: "vault-plugin-secrets-jwt", type: "secret", version: "", sha256: OLD_SHA, builtin: false });
        w.bao.mounts["services/nvcf-api/jwt/"] = jwtMount("", OLD_SHA, "uuid-nvcf-api");
        return w;
    }

    test("the baseline is captured, an existing mount on the same binary is kept, and a new mount on the unversioned entry passes", async () => {
        const { members, bao } = unversioned();
        const before = await captureJwtBaseline(members, "openbao-server-0");
        assert.deepEqual(
            before.mounts.map((m) => [m.path, m.runningVersion, m.runningSha256]),
            [["services/nvcf-api/jwt/", "", OLD_SHA]],
        );
        bao.mounts["services/new/jwt/"] = jwtMount("", OLD_SHA, "uuid-new");
        assert.deepEqual(await verifyJwtMounts(members, "openbao-server-0", before), {
            kept: ["services/nvcf-api/jwt/"],
            added: ["services/new/jwt/"],
            target: { version: "", sha256: OLD_SHA },
        });
    });

    test("a mount whose binary changed fails, naming both binaries", async () => {
        const { members, bao } = unversioned();
        const before = await captureJwtBaseline(members, "openbao-server-0");
        bao.mounts["services/nvcf-api/jwt/"] = jwtMount("", NEW_SHA, "uuid-nvcf-api");
        await assert.rejects(
            verifyJwtMounts(members, "openbao-server-0", before),
            /mount services\/nvcf-api\/jwt\/ ran an unversioned plugin \(SHA-256 aaaaaaaaaaaa\) and now runs an unversioned plugin \(SHA-256 bbbbbbbbbbbb\)/,
        );
    });
});
