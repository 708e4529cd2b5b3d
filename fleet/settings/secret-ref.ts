import { z } from "zod";
import { dnsSubdomain, grammarString } from "../../config/model/grammar";

/**
 * A reference to one key of a Kubernetes Secret: the only way a credential enters the fleet
 * file. The operator resolves it in the Stack's own namespace (a Secret elsewhere is refused,
 * "namespace isolation", stack_controller.go resolveResourceRefAsEnvVar), so it has no namespace.
 */

/**
 * Marks an issue whose value is not printed: a secret pasted in, a URL with a password, or an
 * object that could hold one (the pull-request workflow posts these messages).
 */
export const CONCEAL = "conceal";

/** Whether an issue carries the mark: its problem is printed without the value given. */
export function concealed(issue: z.core.$ZodIssue): issue is z.core.$ZodIssueCustom {
    return issue.code === "custom" && (issue.params as Record<string, unknown> | undefined)?.[CONCEAL] === true;
}

/** A key of a Secret's data: what `kubectl create secret --from-literal=<key>=` accepts. */
const secretDataKey = z.string().regex(/^[-._a-zA-Z0-9]+$/, { message: "must be a Secret data key: letters, digits, '-', '_' and '.'" });

const reference = z.strictObject({ name: grammarString(dnsSubdomain), key: secretDataKey });

export type SecretRef = z.infer<typeof reference>;

export const INLINE_SECRET_MESSAGE =
    "must be a reference to a Kubernetes Secret, never the secret itself (the value is not shown; remove it from the file and from its history)";

/**
 * `{name, key}` of a Secret. A string here is a secret pasted in: it is refused without echoing
 * it, before the object's own checks (a preprocess, so "did you mean" still finds name and key).
 */
export const secretRef = z.preprocess((value, ctx) => {
    if (typeof value === "string" || typeof value === "number") {
        ctx.addIssue({
            code: "custom",
            message: INLINE_SECRET_MESSAGE,
            input: undefined,
            params: { [CONCEAL]: true, allowed: "{name: <a Secret in the environment's namespace>, key: <its key>}" },
        });
    }
    return value;
}, reference);
