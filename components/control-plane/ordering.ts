import { needNames } from "../release/entry";
import { PHASES, type CatalogEntry } from "../catalog/control-plane";

/**
 * The releases each release waits for: its `needs`, and every release of the
 * nearest earlier helmfile.d file, since Helmfile runs the files one after another.
 * Only enabled releases count; a need on a release that is off is dropped, as in Helmfile.
 */
export function releaseDependencies(enabled: readonly CatalogEntry[]): Map<string, string[]> {
    const names = new Set(enabled.map((e) => e.name));
    const byPhase = PHASES.map((phase) => enabled.filter((e) => e.phase === phase).map((e) => e.name));
    const result = new Map<string, string[]>();
    for (const entry of enabled) {
        const index = PHASES.indexOf(entry.phase);
        const earlier =
            byPhase
                .slice(0, index)
                .reverse()
                .find((names) => names.length > 0) ?? [];
        const needs = needNames(entry).filter((n) => names.has(n));
        result.set(entry.name, [...new Set([...needs, ...earlier])]);
    }
    return result;
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
