// The pack run as the engine runs it during a preview, without the engine: the argument bags
// the engine passes to each policy (props wrapped in the engine's own unknownCheckingProxy,
// parents and dependencies resolved), then every policy over a stack's resources. The tests run
// single policies through it; plan-diff runs the whole pack on a pull request's render.
import {
    unknownCheckingProxy,
    type EnforcementLevel,
    type Policies,
    type PolicyProviderResource,
    type PolicyResource,
    type PolicyResourceOptions,
    type ResourceValidationArgs,
    type ResourceValidationPolicy,
    type StackValidationArgs,
    type StackValidationPolicy,
} from "@pulumi/policy";

/** A resource as the engine shows it to the pack; a test may leave the URN out (it is made from type and name). */
export interface FixtureResource {
    readonly type: string;
    readonly name: string;
    readonly props: Record<string, unknown>;
    readonly urn?: string;
    /** The provider's URN (the engine's provider reference without the id). */
    readonly provider?: string;
    readonly parent?: string;
    readonly dependencies?: readonly string[];
}

export const STACK = "test";
export const PROJECT = "nvcf-self-managed";

export function urnOf(type: string, name: string): string {
    return `urn:pulumi:${STACK}::${PROJECT}::${type}::${name}`;
}

export function fixtureUrn(resource: FixtureResource): string {
    return resource.urn ?? urnOf(resource.type, resource.name);
}

const OPTIONS: PolicyResourceOptions = {
    protect: false,
    ignoreChanges: [],
    aliases: [],
    customTimeouts: { createSeconds: 0, updateSeconds: 0, deleteSeconds: 0 },
    additionalSecretOutputs: [],
};

/** What the engine passes for a provider reference: type and name come from its URN. */
function providerOf(urn: string | undefined): PolicyProviderResource | undefined {
    if (!urn) return undefined;
    const [, , qualifiedType = "", name = ""] = urn.split("::");
    return { type: qualifiedType.split("$").pop() ?? "", props: {}, urn, name };
}

class NotApplicable extends Error {}
const notApplicable = (reason?: string): never => {
    throw new NotApplicable(reason);
};
const typeOf = (cls: unknown): unknown => (cls as { __pulumiType?: unknown }).__pulumiType;

export function createResourceValidationArgs(resource: FixtureResource, config: object = {}): ResourceValidationArgs {
    const props = unknownCheckingProxy(resource.props) as Record<string, unknown>;
    const provider = providerOf(resource.provider);
    return {
        type: resource.type,
        props,
        urn: fixtureUrn(resource),
        name: resource.name,
        opts: { ...OPTIONS, ...(resource.parent ? { parent: resource.parent } : {}) },
        ...(provider ? { provider } : {}),
        stackTags: new Map(),
        isType: (cls) => typeOf(cls) === resource.type,
        asType: ((cls: unknown) => (typeOf(cls) === resource.type ? props : undefined)) as ResourceValidationArgs["asType"],
        getConfig: <T extends object>() => config as T,
        notApplicable,
    };
}

/** A stack as the engine passes it to stack policies: parents and dependencies resolved. */
export function createStackValidationArgs(resources: readonly FixtureResource[], config: object = {}): StackValidationArgs {
    const byUrn = new Map<string, PolicyResource>();
    const built = resources.map((resource) => {
        const props = unknownCheckingProxy(resource.props) as Record<string, unknown>;
        const provider = providerOf(resource.provider);
        const policyResource: PolicyResource = {
            type: resource.type,
            props,
            urn: fixtureUrn(resource),
            name: resource.name,
            opts: OPTIONS,
            ...(provider ? { provider } : {}),
            dependencies: [],
            propertyDependencies: {},
            isType: (cls) => typeOf(cls) === resource.type,
            asType: ((cls: unknown) => (typeOf(cls) === resource.type ? props : undefined)) as PolicyResource["asType"],
        };
        byUrn.set(policyResource.urn, policyResource);
        return { resource, policyResource };
    });
    for (const { resource, policyResource } of built) {
        const parent = resource.parent ? byUrn.get(resource.parent) : undefined;
        if (parent) policyResource.parent = parent;
        // As the engine does, dependencies outside the stack are dropped.
        policyResource.dependencies = (resource.dependencies ?? []).flatMap((urn) => byUrn.get(urn) ?? []);
    }
    return {
        resources: built.map((b) => b.policyResource),
        stackTags: new Map(),
        getConfig: <T extends object>() => config as T,
        notApplicable,
    };
}

export interface Violation {
    readonly policy: string;
    readonly level: EnforcementLevel;
    readonly message: string;
    readonly urn?: string;
}

function reporter(policy: ResourceValidationPolicy | StackValidationPolicy, into: Violation[]) {
    const level = policy.enforcementLevel ?? "mandatory";
    return (message: string, urn?: string) => into.push({ policy: policy.name, level, message, ...(urn ? { urn } : {}) });
}

/**
 * Runs a resource policy. Unlike the engine, lets every error through, an UnknownValueError
 * included: a policy of this pack must handle unknown values itself.
 */
export async function runResourcePolicy(policy: ResourceValidationPolicy, args: ResourceValidationArgs): Promise<Violation[]> {
    const violations: Violation[] = [];
    const validations = policy.validateResource === undefined ? [] : [policy.validateResource].flat();
    for (const validate of validations) {
        try {
            await validate(args, reporter(policy, violations));
        } catch (e) {
            if (!(e instanceof NotApplicable)) throw e;
        }
    }
    return violations;
}

export async function runStackPolicy(policy: StackValidationPolicy, args: StackValidationArgs): Promise<Violation[]> {
    const violations: Violation[] = [];
    try {
        await policy.validateStack(args, reporter(policy, violations));
    } catch (e) {
        if (!(e instanceof NotApplicable)) throw e;
    }
    return violations;
}

/** What the whole pack reports on a stack: every resource policy on each resource, then the stack policies. */
export async function runPack(
    policies: Policies,
    resources: readonly FixtureResource[],
    config: Record<string, object> = {},
): Promise<Violation[]> {
    const violations: Violation[] = [];
    const resourcePolicies = policies.filter((p): p is ResourceValidationPolicy => !("validateStack" in p));
    for (const resource of resources) {
        for (const policy of resourcePolicies) {
            violations.push(...(await runResourcePolicy(policy, createResourceValidationArgs(resource, config[policy.name]))));
        }
    }
    for (const policy of policies.filter((p): p is StackValidationPolicy => "validateStack" in p)) {
        violations.push(...(await runStackPolicy(policy, createStackValidationArgs(resources, config[policy.name]))));
    }
    return violations;
}
