import type { ResourceValidationPolicy, StackValidationPolicy } from "@pulumi/policy";
import { POLICIES } from "../../rules/all";
import {
    createResourceValidationArgs,
    createStackValidationArgs,
    runResourcePolicy,
    runStackPolicy,
    type FixtureResource,
    type Violation,
} from "./args";

export const RESOURCE_POLICIES = POLICIES.filter((p): p is ResourceValidationPolicy => !("validateStack" in p));
export const STACK_POLICIES = POLICIES.filter((p): p is StackValidationPolicy => "validateStack" in p);

/** What the whole pack reports on a stack: every resource policy on each resource, then the stack policies. */
export async function runPack(resources: readonly FixtureResource[], config: Record<string, object> = {}): Promise<Violation[]> {
    const violations: Violation[] = [];
    for (const resource of resources) {
        for (const policy of RESOURCE_POLICIES) {
            violations.push(...(await runResourcePolicy(policy, createResourceValidationArgs(resource, config[policy.name]))));
        }
    }
    for (const policy of STACK_POLICIES) {
        violations.push(...(await runStackPolicy(policy, createStackValidationArgs(resources, config[policy.name]))));
    }
    return violations;
}
