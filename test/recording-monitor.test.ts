/**
 * The mock engine's recording monitor (scripts/lib/recording-monitor.ts) on a probe program: after
 * an SDK upgrade, a failure here names what the engine no longer sees; the render would otherwise
 * come out empty or quietly wrong.
 */
import assert from "node:assert/strict";
import * as path from "node:path";
import { describe, test } from "node:test";
import { runProgram } from "../scripts/lib/mock-engine";
import { isSecretAt } from "../scripts/lib/secret-envelope";

const PROBE = path.join(__dirname, "fixtures", "sdk-probe");

describe("the mock engine on a probe program (test/fixtures/sdk-probe)", () => {
    test("records every kind of registration with what the engine would see", async () => {
        const run = await runProgram({}, [], "probe", PROBE);
        const byName = Object.fromEntries(run.resources.map((r) => [r.name, r]));
        assert.deepEqual(Object.keys(byName).sort(), ["existing", "explicit", "first", "group", "second"]);
        const { group, explicit, first, second, existing } = byName;

        const urn = (type: string, name: string) => `urn:pulumi:probe::sdk-probe::${type}::${name}`;
        assert.equal(group.urn, urn("probe:index:Group", "group"));
        assert.equal(group.custom, false);
        assert.equal(explicit.urn, urn("pulumi:providers:probe", "explicit"));
        assert.equal(explicit.custom, true);

        assert.deepEqual(
            {
                urn: first.urn,
                parent: first.parent,
                provider: first.provider,
                custom: first.custom,
                retainOnDelete: first.retainOnDelete,
                deleteBeforeReplace: first.deleteBeforeReplace,
                inputs: first.inputs,
            },
            {
                urn: urn("probe:index:Group$probe:index:Thing", "first"),
                parent: group.urn,
                provider: `${explicit.urn}::explicit-id`,
                custom: true,
                retainOnDelete: true,
                deleteBeforeReplace: true,
                inputs: { plain: "visible", hidden: "hidden-value" },
            },
        );
        assert.ok(isSecretAt(first.rawInputs, ["hidden"]), "the secret input lost its envelope");
        assert.ok(!isSecretAt(first.rawInputs, ["plain"]));

        assert.equal(second.retainOnDelete, false);
        assert.deepEqual(second.dependencies, [first.urn]);
        assert.deepEqual(second.inputs, { fromFirst: "first-id" });

        assert.deepEqual({ custom: existing.custom, inputs: existing.inputs }, { custom: true, inputs: { key: "k", id: "existing-id" } });
        assert.equal(run.outputs.answer, 42);
    });
});
