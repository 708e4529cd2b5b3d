import { longestChain } from "../../components/control-plane/ordering";
import { HELM_RELEASE, type RenderedResource, type RenderedStack } from "./rendered";

/**
 * The steps of a `pulumi up` that wait for workloads to become ready: a Helm release (unless it
 * skips Helm's wait), the health gate, the smoke check, OpenBao's rollout and the rotations that
 * restart their readers or run a Job. Namespaces, secrets, policies, preflight and API calls
 * take seconds; these take as long as the pods they wait for.
 */
const WAITING_DYNAMIC = new Set(
    [
        "HealthGate",
        "SmokeCheck",
        "OpenBaoRollout",
        "OpenBaoKvCredential",
        "OpenBaoMekRotation",
        "NatsNkeyRotation",
        "CassandraPasswordRotation",
    ].map((t) => `pulumi-nodejs:dynamic/nvcf:${t}`),
);

export function waitsForWorkloads(resource: RenderedResource): boolean {
    if (resource.type === HELM_RELEASE) return resource.inputs.skipAwait !== true;
    return WAITING_DYNAMIC.has(resource.type);
}

/**
 * The longest chain of steps that wait for workloads one after another in a render, first to
 * last, by resource name: what sets an install's time when every such step takes about as long.
 * A dependency on a component is one on everything under it, as Pulumi waits for its children.
 */
export function longestWaitingChain(rendered: RenderedStack, weight: (r: RenderedResource) => number = () => 1): string[] {
    const byUrn = new Map(rendered.resources.map((r) => [r.urn, r]));
    const children = new Map<string, RenderedResource[]>();
    for (const r of rendered.resources) if (r.parent) children.set(r.parent, [...(children.get(r.parent) ?? []), r]);
    const expand = (urn: string): string[] => {
        const kids = children.get(urn) ?? [];
        return kids.length === 0 ? (byUrn.has(urn) ? [urn] : []) : kids.flatMap((k) => expand(k.urn));
    };
    const deps = new Map(rendered.resources.map((r) => [r.urn, r.dependsOn.flatMap(expand)]));
    // The steps that wait nothing weigh nothing: the chain passes through them, then leaves them out.
    const weighs = (urn: string) => (waitsForWorkloads(byUrn.get(urn)!) ? weight(byUrn.get(urn)!) : 0);
    return longestChain(deps, weighs)
        .map((urn) => byUrn.get(urn)!)
        .filter(waitsForWorkloads)
        .map((r) => r.name);
}
