import { compareStrings, type RenderedResource, type RenderedStack } from "../lib/rendered";
import type { PlanDiff } from "./diff";

export type ChangeKind = "add" | "remove" | "replace" | "change";

export interface RadiusNode {
    readonly urn: string;
    readonly name: string;
    /** How the diff changes it; undefined for a resource that only waits on a changed one. */
    readonly kind?: ChangeKind;
}

/** The changed resources, what waits on them, and the arrows between them (A to B: B waits on A). */
export interface BlastRadius {
    readonly nodes: readonly RadiusNode[];
    readonly edges: readonly (readonly [string, string])[];
    /** Resources that wait on a change but did not fit within the limit. */
    readonly more: number;
}

/**
 * What a change reaches: every changed resource and, nearest first, the resources of the working
 * tree's render that wait on one (directly or through others), at most `limit` nodes in all. A
 * resource waits on X when it depends on X or on a component holding X: Pulumi waits for a
 * component's children. A removed resource has nothing left waiting on it in the working tree.
 */
export function blastRadius(diff: PlanDiff, head: RenderedStack | null, limit = 30): BlastRadius {
    const changed = new Map<string, RadiusNode>();
    const note = (kind: ChangeKind, list: readonly { urn: string; name: string }[]) => {
        for (const r of list) changed.set(r.urn, { urn: r.urn, name: r.name, kind });
    };
    note("add", diff.added);
    note("remove", diff.removed);
    note("replace", diff.replaced);
    note("change", diff.changed);

    const resources = head?.resources ?? [];
    const byUrn = new Map(resources.map((r) => [r.urn, r]));
    const waiting = waitersByUrn(resources, byUrn);
    const nodes = new Map(changed);
    const queue = [...changed.keys()].sort(compareStrings);
    const reached = new Set<string>();
    for (let i = 0; i < queue.length; i++) {
        for (const waiter of waiting.get(queue[i]) ?? []) {
            if (nodes.has(waiter) || reached.has(waiter)) continue;
            reached.add(waiter);
            queue.push(waiter);
        }
    }
    const room = Math.max(0, limit - nodes.size);
    const shown = queue.filter((urn) => !changed.has(urn)).slice(0, room);
    for (const urn of shown) nodes.set(urn, { urn, name: byUrn.get(urn)!.name });
    const edges = withoutImplied([...nodes.keys()].map((urn) => [urn, (waiting.get(urn) ?? []).filter((w) => nodes.has(w))] as const));
    return { nodes: [...nodes.values()], edges, more: reached.size - shown.length };
}

/**
 * The arrows no other path already implies (the transitive reduction: the graph has no cycle,
 * Pulumi refuses one): what waits on what stays readable when every release waits on one change.
 */
function withoutImplied(graph: readonly (readonly [string, readonly string[]])[]): [string, string][] {
    const next = new Map(graph);
    const below = new Map<string, Set<string>>();
    const reachable = (from: string): Set<string> => {
        let found = below.get(from);
        if (found) return found;
        found = new Set();
        below.set(from, found);
        for (const to of next.get(from) ?? []) {
            found.add(to);
            for (const further of reachable(to)) found.add(further);
        }
        return found;
    };
    const edges: [string, string][] = [];
    for (const [from, tos] of graph) {
        for (const to of tos) if (!tos.some((via) => via !== to && reachable(via).has(to))) edges.push([from, to]);
    }
    return edges.sort((a, b) => compareStrings(a[0], b[0]) || compareStrings(a[1], b[1]));
}

/** For each resource, the resources that wait on it directly: on it, or on a component above it. */
function waitersByUrn(resources: readonly RenderedResource[], byUrn: ReadonlyMap<string, RenderedResource>): Map<string, string[]> {
    const dependents = new Map<string, string[]>();
    for (const r of resources) for (const d of r.dependsOn) dependents.set(d, [...(dependents.get(d) ?? []), r.urn]);
    const waiting = new Map<string, string[]>();
    for (const r of resources) {
        const all = new Set<string>();
        for (let at: RenderedResource | undefined = r; at; at = at.parent === null ? undefined : byUrn.get(at.parent)) {
            for (const w of dependents.get(at.urn) ?? []) if (w !== r.urn) all.add(w);
        }
        waiting.set(r.urn, [...all].sort(compareStrings));
    }
    return waiting;
}
