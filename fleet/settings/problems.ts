import type { z } from "zod";
import { type ConfigProblem, problemsFromIssues } from "../../config/model/errors";
import { concealed } from "./secret-ref";
import { fleetKey } from "./project";

/**
 * zod's issues for one fleet key as the root project words them (config/model/errors.ts: the key,
 * what was given, what is allowed, "did you mean"), except that no value is printed for an
 * issue marked concealed (a secret pasted in, a URL with a password) or for anything under
 * `secrets` or `auth`: the root's masking goes by the key's last name, and `env`, `config` or
 * `PGPASSWORD` are not names it knows as credentials.
 */
export function fleetProblems(key: string, issues: readonly z.core.$ZodIssue[], raw: unknown, schema: z.ZodType): ConfigProblem[] {
    return issues.flatMap((issue) => {
        if (concealed(issue)) {
            const allowed = (issue.params as { allowed?: unknown } | undefined)?.allowed;
            return [{ key: fleetKey(key, issue.path), message: issue.message, ...(typeof allowed === "string" ? { allowed } : {}) }];
        }
        const problems = problemsFromIssues(fleetKey(key), [issue], raw, schema);
        const sensitive = issue.path.some((part) => part === "secrets" || part === "auth");
        return sensitive ? problems.map(({ given: _given, ...shown }) => shown) : problems;
    });
}
