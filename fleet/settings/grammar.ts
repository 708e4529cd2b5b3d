import type { Grammar } from "../../config/model/grammar";
import { STACK_NAME_MAX } from "./upstream";

/**
 * The grammars of the fleet file's own strings, in the shape of config/model/grammar.ts: what the value
 * must be, and why a given one is not. Each says why the operator or the CLI would refuse the
 * value, or misread it, so the fleet stops before a Stack is declared that could never run.
 */

const HEX = /^[0-9a-f]+$/i;

/** `git check-ref-format`'s rules for one ref name (a tag): what git itself refuses. */
function refNameProblem(v: string): string | undefined {
    // eslint-disable-next-line no-control-regex -- control characters are among what git refuses
    if (/[\u0000-\u0020\u007f~^:?*[\\]/.test(v)) return "it contains a space, a control character or one of ~ ^ : ? * [ \\";
    if (v.includes("..") || v.includes("@{") || v.includes("//")) return "it contains '..', '@{' or '//'";
    if (v === "@" || v.startsWith("/") || v.endsWith("/") || v.endsWith("."))
        return "it is '@', or starts or ends with '/' or ends with '.'";
    if (v.split("/").some((part) => part.startsWith(".") || part.endsWith(".lock")))
        return "a part of it starts with '.' or ends with '.lock'";
    return undefined;
}

/**
 * What `commit` pins: a full commit SHA, or a tag. The operator takes a value as a commit only
 * when go-git's plumbing.IsHash says so, exactly 40 hex digits; anything else it looks up by
 * name among the repository's refs (operator/internal/controller/pulumi/git.go, CurrentCommit),
 * so a short SHA would never resolve and the Stack would stall.
 */
export const pinnedCommit: Grammar = {
    what: "a full commit SHA or a tag",
    allowed: "the 40 hex digits of a commit, or a tag name such as v1.4.0 (not a short SHA)",
    check: (v) => {
        if (v === "") return "it is empty";
        if (HEX.test(v)) {
            if (v.length === 40) return undefined;
            return `it looks like a ${v.length < 40 ? "short" : `${v.length}-digit`} SHA, and the operator takes only 40 hex digits as a commit (it would look ${JSON.stringify(v)} up as a ref name and stall)`;
        }
        return refNameProblem(v);
    },
};

/** A branch the operator follows (`branch`: "either the simple or fully qualified ref name", stack_types.go). */
export const branchName: Grammar = {
    what: "a branch name",
    allowed: "a git ref name such as main or refs/heads/main",
    check: (v) => (v === "" ? "it is empty" : refNameProblem(v)),
};

const STACK_PART = /^[A-Za-z0-9_.-]+$/;

/**
 * The stack the Stack runs (`spec.stack`): `<stack>`, `<org>/<stack>` or `<org>/<project>/<stack>`,
 * each part as pulumi/pulumi's sdk/go/common/tokens/stack_name.go allows a stack name (at most
 * 100 characters of letters, digits, '-', '_' and '.').
 */
export const stackName: Grammar = {
    what: "a Pulumi stack name",
    allowed:
        "<stack>, <org>/<stack> or <org>/<project>/<stack>, each part of letters, digits, '-', '_' and '.', the stack at most 100 characters",
    check: (v) => {
        const parts = v.split("/");
        if (v === "" || parts.length > 3) return v === "" ? "it is empty" : "it has more than three parts";
        if (parts.some((p) => !STACK_PART.test(p))) return "a part is empty or has characters other than letters, digits, '-', '_' and '.'";
        return parts[parts.length - 1].length > 100 ? "the stack part is over 100 characters" : undefined;
    },
};

/** A Go duration, as metav1.Duration parses `succeededWithinDuration` (time.ParseDuration). */
export const goDuration: Grammar = {
    what: "a duration",
    allowed: "a number and a unit (h, m, s, ms), such as 1h, 30m or 1h30m",
    check: (v) => (/^([0-9]+(\.[0-9]+)?(h|m|s|ms|us|ns))+$/.test(v) ? undefined : "it is not numbers with units h, m, s, ms, us or ns"),
};

/** A resource quantity as Kubernetes writes one (k8s.io/apimachinery resource.Quantity): 500m, 2, 4Gi. */
export const resourceQuantity: Grammar = {
    what: "a Kubernetes quantity",
    allowed: "a positive number with an optional suffix m, k, M, G, T, Ki, Mi, Gi or Ti, such as 500m or 4Gi",
    check: (v) =>
        /^([0-9]+(\.[0-9]*)?|\.[0-9]+)(m|k|M|G|T|P|E|Ki|Mi|Gi|Ti|Pi|Ei)?$/.test(v) && Number.parseFloat(v) > 0
            ? undefined
            : "it is not a positive number with one of the suffixes Kubernetes reads",
};

/** An environment variable's name in a container (a C identifier, as the workspace's envFrom asks). */
export const envVarName: Grammar = {
    what: "an environment variable name",
    allowed: "letters, digits and '_', not starting with a digit, such as PGPASSWORD",
    check: (v) => (/^[A-Za-z_][A-Za-z0-9_]*$/.test(v) ? undefined : "it is not letters, digits and '_' starting with a letter or '_'"),
};

/** An environment's name: the Stack's, its ServiceAccount's and its workspace's. */
export const environmentName: Grammar = {
    what: `an RFC 1123 label of at most ${STACK_NAME_MAX} characters`,
    allowed: `lower-case letters, digits and '-', starting and ending with a letter or digit, at most ${STACK_NAME_MAX} characters (the operator's Stack CRD: size(self.metadata.name) <= ${STACK_NAME_MAX})`,
    check: (v) => {
        if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(v)) return "it has characters other than a-z, 0-9 and '-', or starts or ends with '-'";
        return v.length > STACK_NAME_MAX
            ? `it is ${v.length} characters long, and it names the Stack, which the operator's CRD refuses over ${STACK_NAME_MAX}`
            : undefined;
    },
};
