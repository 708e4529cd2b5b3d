import type { PolicyResource, StackValidationArgs } from "@pulumi/policy";
import { at, plain, type Plain } from "./known";
import { releaseOf, type Release } from "./release";

export const COMPUTE_PLANE_TYPE = "nvcf:compute-plane:ComputePlane";
const KUBERNETES_PROVIDER_TYPE = "pulumi:providers:kubernetes";

/** One resource of the stack as plain data, with its relations as URNs. */
export interface StackResource {
    readonly type: string;
    readonly urn: string;
    readonly props: Plain;
    readonly release?: Release;
    /** URN of its Kubernetes provider, i.e. its cluster; undefined for other providers. */
    readonly cluster?: string;
    readonly parent?: string;
    readonly dependencies: readonly string[];
}

export interface StackView {
    readonly resources: readonly StackResource[];
    readonly byUrn: ReadonlyMap<string, StackResource>;
}

function toStackResource(r: PolicyResource): StackResource {
    const props = plain(r.props);
    const release = releaseOf(r.type, props);
    return {
        type: r.type,
        urn: r.urn,
        props,
        ...(release ? { release } : {}),
        ...(r.provider?.type === KUBERNETES_PROVIDER_TYPE ? { cluster: r.provider.urn } : {}),
        ...(r.parent ? { parent: r.parent.urn } : {}),
        dependencies: r.dependencies.map((d) => d.urn),
    };
}

export function stackView(args: StackValidationArgs): StackView {
    const resources = args.resources.map(toStackResource);
    return { resources, byUrn: new Map(resources.map((r) => [r.urn, r])) };
}

/** Helm releases with this release name. */
export function releasesNamed(view: StackView, name: string): StackResource[] {
    return view.resources.filter((r) => r.release?.name === name);
}

/** Everything `from` depends on, directly or through other resources. */
export function dependencyClosure(view: StackView, from: StackResource): StackResource[] {
    const seen = new Set<string>();
    const queue = [...from.dependencies];
    while (queue.length > 0) {
        const urn = queue.shift() as string;
        if (seen.has(urn)) continue;
        seen.add(urn);
        queue.push(...(view.byUrn.get(urn)?.dependencies ?? []));
    }
    return [...seen].flatMap((urn) => view.byUrn.get(urn) ?? []);
}

/** The URN of the ComputePlane component a resource belongs to, if any. */
export function computePlaneOf(view: StackView, resource: StackResource): string | undefined {
    let current: StackResource | undefined = resource;
    while (current) {
        if (current.type === COMPUTE_PLANE_TYPE) return current.urn;
        current = current.parent ? view.byUrn.get(current.parent) : undefined;
    }
    return undefined;
}

/** Kubernetes objects by kind and metadata name (and namespace when given). */
export function isObject(resource: StackResource, type: string, name: string, namespace?: string): boolean {
    return (
        resource.type === type &&
        at(resource.props, "metadata", "name") === name &&
        (namespace === undefined || at(resource.props, "metadata", "namespace") === namespace)
    );
}
