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
    const expand = (urn: string): RenderedResource[] => {
        const r = byUrn.get(urn);
        if (!r) return [];
        const kids = children.get(urn) ?? [];
        return kids.length === 0 ? [r] : kids.flatMap((k) => expand(k.urn));
    };
    const memo = new Map<string, { total: number; chain: string[] }>();
    const none = { total: 0, chain: [] as string[] };
    const longer = (a: { total: number; chain: string[] }, b: { total: number; chain: string[] }) => (b.total > a.total ? b : a);
    const of = (r: RenderedResource): { total: number; chain: string[] } => {
        const known = memo.get(r.urn);
        if (known) return known;
        memo.set(r.urn, none); // a cycle (never in a valid program) ends here instead of looping
        const before = r.dependsOn.flatMap(expand).map(of).reduce(longer, none);
        const result = waitsForWorkloads(r) ? { total: before.total + weight(r), chain: [...before.chain, r.name] } : before;
        memo.set(r.urn, result);
        return result;
    };
    return rendered.resources.map(of).reduce(longer, none).chain;
}
