import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { POLICIES } from "../rules/all";
import {
    createResourceValidationArgs,
    createStackValidationArgs,
    runResourcePolicy,
    runStackPolicy,
    UNKNOWN_FROM_ENGINE,
    type FixtureResource,
} from "./support/args";
import { ALL_FIXTURES, compliantStack, essRelease, withProp } from "./support/fixtures";
import { EXPECTED_POLICIES } from "./support/expected";
import { RESOURCE_POLICIES, runPack, STACK_POLICIES } from "./support/pack";

/** Every path into a value, containers included, for replacing each one with an unknown. */
function paths(value: unknown, prefix: (string | number)[] = []): (string | number)[][] {
    if (Array.isArray(value)) return value.flatMap((item, i) => [[...prefix, i], ...paths(item, [...prefix, i])]);
    if (typeof value === "object" && value !== null) {
        return Object.entries(value).flatMap(([k, item]) => [[...prefix, k], ...paths(item, [...prefix, k])]);
    }
    return [];
}

describe("the policy pack", () => {
    it("has exactly the expected policies, names and enforcement levels", () => {
        assert.deepEqual(Object.fromEntries(POLICIES.map((p) => [p.name, p.enforcementLevel])), EXPECTED_POLICIES);
        assert.equal(new Set(POLICIES.map((p) => p.name)).size, POLICIES.length);
    });

    it("gives each policy a kebab-case name, a sentence of description and remediation steps", () => {
        for (const policy of POLICIES) {
            assert.match(policy.name, /^[a-z][a-z0-9]*(?:-[a-z0-9]+)+$/, policy.name);
            assert.match(policy.description, /^[A-Z`].*[.)]$/s, `${policy.name} description`);
            assert.ok((policy.remediationSteps ?? "").length > 20, `${policy.name} remediation`);
            assert.ok(!policy.configSchema?.properties.enforcementLevel, `${policy.name} declares enforcementLevel in its schema`);
        }
    });

    it("reports nothing on the compliant stack", async () => {
        assert.deepEqual(await runPack(compliantStack()), []);
    });

    it("never lets an unknown value escape, whichever resource field is unknown", async () => {
        for (const fixture of ALL_FIXTURES) {
            const resource = fixture();
            for (const path of [["values"], ...paths(resource.props)]) {
                const unknown = withProp(resource, path, UNKNOWN_FROM_ENGINE);
                for (const policy of RESOURCE_POLICIES) {
                    await assert.doesNotReject(
                        runResourcePolicy(policy, createResourceValidationArgs(unknown)),
                        `${policy.name} at ${resource.name}.${path.join(".")}`,
                    );
                }
            }
        }
    });

    it("never lets an unknown value escape from a stack policy", async () => {
        const stack = compliantStack();
        for (const resource of stack) {
            for (const path of paths(resource.props)) {
                const unknown: FixtureResource[] = stack.map((r) => (r === resource ? withProp(r, path, UNKNOWN_FROM_ENGINE) : r));
                for (const policy of STACK_POLICIES) {
                    await assert.doesNotReject(
                        runStackPolicy(policy, createStackValidationArgs(unknown)),
                        `${policy.name} at ${resource.name}.${path.join(".")}`,
                    );
                }
            }
        }
    });

    it("still checks the known fields of a release whose values are unknown", async () => {
        const release = withProp(withProp(essRelease(), ["values"], UNKNOWN_FROM_ENGINE), ["createNamespace"], true);
        const violations = await runPack([release]);
        assert.deepEqual(
            violations.map((v) => v.policy),
            ["helm-release-no-create-namespace"],
        );
    });
});
