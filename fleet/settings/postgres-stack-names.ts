import { fleetKey } from "./project";
import type { FleetRule } from "./rule";

/**
 * The PostgreSQL backend finds a stack's locks and history with an unescaped `key LIKE
 * '<prefix>%'` (ListPaged, pkg/backend/diy/postgres/bucket.go, pulumi/pulumi 3.276.0), where `_`
 * is any one character: with stacks `prod_1` and `prod-1` on one backend, `pulumi stack import`
 * and `pulumi cancel` of `prod_1` read the other's keys too and the CLI panics.
 */
export const postgresStackNames: FleetRule = (fleet) => {
    const seen: { name: string; backend: string; stack: string }[] = [];
    return Object.entries(fleet.environments).flatMap(([name, env]) => {
        if (!env.backend?.startsWith("postgres://")) return [];
        const clash = seen.find((o) => o.backend === env.backend && o.stack !== env.stack && likeEachOther(o.stack, env.stack));
        seen.push({ name, backend: env.backend, stack: env.stack });
        if (clash === undefined) return [];
        return [
            {
                key: fleetKey("environments", [name, "stack"]),
                message:
                    `differs from stack ${clash.stack} of environment ${clash.name}, on the same PostgreSQL backend, only where one has '_': ` +
                    "that backend matches keys with LIKE, where '_' is any character, and the CLI fails on such a pair",
                given: env.stack,
                allowed: `a stack name that differs from ${clash.stack} in a character other than '_'`,
            },
        ];
    });
};

/** Whether either name, as a LIKE pattern (`_` any one character), matches the other. */
function likeEachOther(a: string, b: string): boolean {
    if (a.length !== b.length) return false;
    return [...a].every((c, i) => c === b[i] || c === "_" || b[i] === "_");
}
