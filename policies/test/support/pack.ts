import type { ResourceValidationPolicy, StackValidationPolicy } from "@pulumi/policy";
import { runPack as runPolicies, type FixtureResource, type Violation } from "../../lib/run-offline";
import { POLICIES } from "../../rules/all";

export const RESOURCE_POLICIES = POLICIES.filter((p): p is ResourceValidationPolicy => !("validateStack" in p));
export const STACK_POLICIES = POLICIES.filter((p): p is StackValidationPolicy => "validateStack" in p);

/** What the whole pack reports on a stack: every resource policy on each resource, then the stack policies. */
export function runPack(resources: readonly FixtureResource[], config: Record<string, object> = {}): Promise<Violation[]> {
    return runPolicies(POLICIES, resources, config);
}
