// Test helpers in the style of pulumi/compliance-policies' unit-test-helpers: build the argument
// bags the engine passes to a policy, run the policy, and assert on what it reported. Props are
// wrapped in the engine's own unknownCheckingProxy, as during a real preview.
import assert from "node:assert/strict";
import type { ResourceValidationArgs, ResourceValidationPolicy, StackValidationArgs, StackValidationPolicy } from "@pulumi/policy";
import { runResourcePolicy, runStackPolicy, type Violation } from "../../lib/run-offline";

export {
    createResourceValidationArgs,
    createStackValidationArgs,
    fixtureUrn,
    PROJECT,
    runResourcePolicy,
    runStackPolicy,
    STACK,
    urnOf,
    type FixtureResource,
    type Violation,
} from "../../lib/run-offline";

function assertOnly(violations: Violation[], want: string | RegExp): void {
    const messages = violations.map((v) => v.message);
    assert.equal(violations.length, 1, `expected exactly one violation, got: ${JSON.stringify(messages)}`);
    if (typeof want === "string") assert.ok(messages[0].includes(want), `"${messages[0]}" does not contain "${want}"`);
    else assert.match(messages[0], want);
}

/** The policy reports exactly one violation, and it matches `want`. */
export async function assertHasResourceViolation(
    policy: ResourceValidationPolicy,
    args: ResourceValidationArgs,
    want: string | RegExp,
): Promise<void> {
    assertOnly(await runResourcePolicy(policy, args), want);
}

export async function assertNoResourceViolations(policy: ResourceValidationPolicy, args: ResourceValidationArgs): Promise<void> {
    assert.deepEqual(await runResourcePolicy(policy, args), []);
}

/** The stack policy reports exactly one violation, matching `want` (and on `urn` when given). */
export async function assertHasStackViolation(
    policy: StackValidationPolicy,
    args: StackValidationArgs,
    want: string | RegExp,
    urn?: string,
): Promise<void> {
    const violations = await runStackPolicy(policy, args);
    assertOnly(violations, want);
    if (urn !== undefined) assert.equal(violations[0].urn, urn);
}

export async function assertNoStackViolations(policy: StackValidationPolicy, args: StackValidationArgs): Promise<void> {
    assert.deepEqual(await runStackPolicy(policy, args), []);
}

/** What the engine sends for a value unknown during preview (@pulumi/pulumi runtime/rpc). */
export { unknownValue as UNKNOWN_FROM_ENGINE } from "@pulumi/pulumi/runtime/rpc";
