import { pathMatches, type FieldPath } from "./path";

/** A field that changes by design, never reported as drift. */
export interface DriftIgnoreRule {
    /** The object's kind; unset: every kind. */
    readonly kinds?: readonly string[];
    /** The object's name; unset: every name. */
    readonly name?: string;
    /** The field, or a parent of the fields, as the report writes it; `*` matches anything within one step. */
    readonly path: string;
    /** Only while a HorizontalPodAutoscaler targets the object. */
    readonly whileAutoscaled?: boolean;
    readonly why: string;
}

/** What the API server or the program's own steps change in objects the charts made. */
export const BUILT_IN_IGNORES: readonly DriftIgnoreRule[] = [
    {
        kinds: ["Deployment", "StatefulSet", "ReplicaSet"],
        path: "spec.replicas",
        whileAutoscaled: true,
        why: "a HorizontalPodAutoscaler sets the replicas",
    },
    {
        kinds: ["MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"],
        path: "webhooks[*].clientConfig.caBundle",
        why: "a CA injector writes it (cert-manager's cainjector, or the webhook's own server)",
    },
    {
        kinds: ["CustomResourceDefinition"],
        path: "spec.conversion.webhook.clientConfig.caBundle",
        why: "a CA injector writes the conversion webhook's CA",
    },
    { kinds: ["APIService"], path: "spec.caBundle", why: "a CA injector writes it" },
    {
        path: "spec.template.metadata.annotations[kubectl.kubernetes.io/restartedAt]",
        why: "kubectl rollout restart and the program's credential rotations restart pods with it",
    },
    { path: "metadata.annotations[nvcf-self-managed/*]", why: "the program's own marks" },
    { path: "spec.template.metadata.annotations[nvcf-self-managed/*]", why: "the program's own marks" },
];

/** A rule from the stack file: `releases.<name>.driftIgnore` items. */
export interface UserDriftIgnore {
    readonly kind?: string;
    readonly name?: string;
    readonly path: string;
}

export function userRules(items: readonly UserDriftIgnore[] | undefined): DriftIgnoreRule[] {
    return (items ?? []).map((i) => ({
        ...(i.kind ? { kinds: [i.kind] } : {}),
        ...(i.name ? { name: i.name } : {}),
        path: i.path,
        why: "the stack file's driftIgnore",
    }));
}

/** The rule that ignores this field of this object, if any. Pure. */
export function ignoredBy(
    rules: readonly DriftIgnoreRule[],
    object: { readonly kind: string; readonly name: string; readonly autoscaled: boolean },
    path: FieldPath,
): DriftIgnoreRule | undefined {
    return rules.find(
        (r) =>
            (!r.kinds || r.kinds.includes(object.kind)) &&
            (r.name === undefined || r.name === object.name) &&
            (!r.whileAutoscaled || object.autoscaled) &&
            pathMatches(r.path, path),
    );
}

const SECRET_WORDS = /password|passwd|secret|token|credential|api[-_]?key|private[-_]?key/i;

/** Whether a field's values must not be shown: a Secret's data, or a field whose name says it holds a credential. */
export function hidesValue(kind: string, path: FieldPath): boolean {
    if (kind === "Secret" && (path[0]?.key === "data" || path[0]?.key === "stringData")) return true;
    return path.some((s) => SECRET_WORDS.test(s.key));
}
