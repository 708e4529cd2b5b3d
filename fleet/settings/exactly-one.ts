import type { z } from "zod";
import { CONCEAL } from "./secret-ref";

/**
 * One problem unless exactly one of `keys` is set on `value`. The object itself is not printed:
 * its message names the keys, and the object could hold a URL with a credential.
 */
export function exactlyOne(keys: readonly string[], what: string) {
    return <T extends object>(value: T, ctx: z.core.$RefinementCtx<T>) => {
        const set = keys.filter((k) => (value as Record<string, unknown>)[k] !== undefined);
        if (set.length === 1) return;
        ctx.addIssue({
            code: "custom",
            message:
                set.length === 0
                    ? `needs one of ${keys.join(", ")} (${what})`
                    : `sets ${set.join(" and ")}; only one of them is read (${what})`,
            params: { [CONCEAL]: true, allowed: `exactly one of ${keys.join(", ")}` },
        });
    };
}
