import { fleetKey } from "./project";
import type { FleetRule } from "./rule";

/**
 * Prerequisites that lead back to where they start: each Stack of the cycle waits for the next
 * to succeed, so none ever runs (the operator reports PrerequisiteNotSatisfied and waits). Each
 * cycle is named once, from its first environment in the file's order.
 */
export const prerequisiteCycles: FleetRule = (fleet) => {
    const needs = new Map(Object.entries(fleet.environments).map(([name, env]) => [name, env.prerequisites.map((p) => p.environment)]));
    const reported = new Set<string>();
    const problems = [];
    for (const start of needs.keys()) {
        const cycle = cycleFrom(start, needs);
        if (cycle === undefined || cycle.some((n) => reported.has(n))) continue;
        for (const n of cycle) reported.add(n);
        problems.push({
            key: fleetKey("environments", [start, "prerequisites"]),
            message: `the prerequisites form a cycle, so none of these Stacks would ever run: ${[...cycle, start].join(" -> ")}`,
            allowed: "prerequisites that lead from the first environment to promote to the last, never back",
        });
    }
    return problems;
};

/** The shortest path of prerequisites from `start` back to itself, as its environments; undefined when none. */
function cycleFrom(start: string, needs: ReadonlyMap<string, readonly string[]>): string[] | undefined {
    const cameFrom = new Map<string, string>();
    for (let queue = [start]; queue.length > 0;) {
        const next: string[] = [];
        for (const at of queue) {
            for (const to of needs.get(at) ?? []) {
                if (to === start) {
                    const path = [at];
                    for (let p = cameFrom.get(at); p !== undefined; p = cameFrom.get(p)) path.unshift(p);
                    return path;
                }
                if (cameFrom.has(to) || !needs.has(to)) continue;
                cameFrom.set(to, at);
                next.push(to);
            }
        }
        queue = next;
    }
    return undefined;
}
