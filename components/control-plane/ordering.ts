import { needNames } from "../release/entry";
import type { CatalogEntry } from "../catalog/control-plane";

/**
 * The releases each release waits for: its `needs`, nothing else (not NVIDIA's file order: the
 * install takes as long as the longest chain of releases that wait on each other). Only enabled
 * releases count; a need on a release that is off is dropped, as in Helmfile.
 */
export function releaseDependencies(enabled: readonly CatalogEntry[]): Map<string, string[]> {
    const names = new Set(enabled.map((e) => e.name));
    return new Map(enabled.map((entry) => [entry.name, [...new Set(needNames(entry).filter((n) => names.has(n)))]]));
}

/**
 * The longest chain of names that wait on each other, first to last, in a dependency map (each
 * name to the names it waits for). With `weight`, the chain whose weights add up to the most.
 */
export function longestChain(deps: ReadonlyMap<string, readonly string[]>, weight: (name: string) => number = () => 1): string[] {
    const memo = new Map<string, { total: number; chain: string[] }>();
    const of = (name: string): { total: number; chain: string[] } => {
        const known = memo.get(name);
        if (known) return known;
        const before = (deps.get(name) ?? []).map(of).reduce((a, b) => (b.total > a.total ? b : a), { total: 0, chain: [] as string[] });
        const result = { total: before.total + weight(name), chain: [...before.chain, name] };
        memo.set(name, result);
        return result;
    };
    return [...deps.keys()].map(of).reduce((a, b) => (b.total > a.total ? b : a), { total: 0, chain: [] as string[] }).chain;
}

/**
 * The releases in an order where each comes after everything it waits for (catalog order
 * otherwise), so each release can name its dependencies' resources. A cycle is a catalog bug.
 */
export function installOrder(enabled: readonly CatalogEntry[], dependencies: Map<string, string[]>): CatalogEntry[] {
    const ordered: CatalogEntry[] = [];
    const placed = new Set<string>();
    const visiting = new Set<string>();
    const byName = new Map(enabled.map((e) => [e.name, e]));
    const visit = (entry: CatalogEntry) => {
        if (placed.has(entry.name)) return;
        if (visiting.has(entry.name)) throw new Error(`release dependency cycle through ${entry.name}`);
        visiting.add(entry.name);
        for (const dep of dependencies.get(entry.name) ?? []) visit(byName.get(dep)!);
        visiting.delete(entry.name);
        placed.add(entry.name);
        ordered.push(entry);
    };
    enabled.forEach(visit);
    return ordered;
}
