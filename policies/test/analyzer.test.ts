// The pack served as under `pulumi preview --policy-pack policies`: index.ts in its own process,
// driven through the analyzer gRPC protocol with the engine's messages (unknowns and secrets in
// their wire format). This also proves index.ts assembles the pack, without importing it.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { inBackground } from "../../test/support/background";
import { runDev } from "../../test/support/runs";
import { UNKNOWN_FROM_ENGINE } from "./support/args";
import { analyze, analyzerInfo, analyzeStack, servePack, type Served } from "./support/analyzer";
import { EXPECTED_POLICIES } from "./support/expected";
import { cassandraRelease, compliantStack, essRelease, withProp } from "./support/fixtures";
import { fromRecordedWire } from "../../scripts/lib/policy-resources";

/** How the SDK marks a secret on the wire (@pulumi/pulumi runtime/rpc specialSigKey, specialSecretSig). */
const secret = (value: unknown) => ({ "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270", value });

// The pack starts (a process loading the SDK) while the other test files load.
const served = inBackground(servePack);
let pack: Served;
before(async () => {
    pack = await served;
});
after(async () => (await served).stop());

describe("the served pack", () => {
    it("announces every policy with its enforcement level", async () => {
        const info = await analyzerInfo(pack);
        const levels = ["advisory", "mandatory", "disabled", "remediate"];
        const served = Object.fromEntries(info.getPoliciesList().map((p) => [p.getName(), levels[p.getEnforcementlevel()]]));
        assert.equal(info.getName(), "nvcf-self-managed");
        assert.equal(info.getVersion(), "0.1.0");
        assert.deepEqual(served, EXPECTED_POLICIES);
    });

    it("runs every resource policy on a release with unknown values, reporting only what is known to be wrong", async () => {
        const release = withProp(
            withProp(cassandraRelease(), ["values", "cassandra", "serviceRolePassword"], UNKNOWN_FROM_ENGINE),
            ["createNamespace"],
            true,
        );
        const found = await analyze(pack, release);
        assert.deepEqual(
            found.map((d) => `${d.policy}/${d.level}`),
            ["helm-release-no-create-namespace/mandatory"],
        );
        // The served message is the description, then what the policy reported.
        assert.ok(found[0].message.endsWith('Helm release "cassandra" sets createNamespace; the namespace must be an owned resource.'));
        // No policy fell back to the engine's "can't run during preview" advisory.
        assert.deepEqual(await analyze(pack, withProp(essRelease(), ["values"], UNKNOWN_FROM_ENGINE)), []);
    });

    it("sees through secrets", async () => {
        const release = withProp(cassandraRelease(), ["values", "cassandra", "serviceRolePassword"], secret("ch@ng3m3"));
        const found = await analyze(pack, release);
        assert.deepEqual(
            found.map((d) => d.policy),
            ["cassandra-password-set"],
        );
    });

    it("reports nothing on the compliant control and compute planes", async () => {
        assert.deepEqual(await analyzeStack(pack, compliantStack()), []);
    });

    it("reports nothing on the dev stack's desired state, sent with its secrets", async () => {
        const dev = (await runDev()).resources.map(fromRecordedWire);
        for (const resource of dev) assert.deepEqual(await analyze(pack, resource), [], resource.urn);
        assert.deepEqual(await analyzeStack(pack, dev), []);
    });

    // FLIPPED (see program.test.ts): the program now declares the grant revocation, so the stack
    // passes; without that resource it is flagged.
    it("judges adminIssuerProxy.enabled: false by the grant revocation resource", async () => {
        const off = (await runDev({ adminIssuerProxy: { enabled: false } })).resources.map(fromRecordedWire);
        assert.deepEqual(await analyzeStack(pack, off), []);
        const withoutRevocation = off.filter((r) => !r.type.endsWith("GrantRevocation"));
        assert.deepEqual(
            (await analyzeStack(pack, withoutRevocation)).map((d) => `${d.policy}/${d.level}`),
            ["admin-issuer-grant-revoked/mandatory"],
        );
    });
});
