/**
 * The part of a Pulumi checkpoint (`pulumi stack export --show-secrets`) that recovery reads and
 * edits, and the edits themselves. Pure: the deployment is data in, data out.
 */
import { HELM_RELEASE_TYPE, KUBERNETES_STATE_KEYS, SECRET_SIGNATURE } from "../../lib/contracts/pulumi-state";

/** A resource as the checkpoint records it; fields recovery does not touch ride along unchanged. */
export interface StateResource {
    readonly urn: string;
    readonly type: string;
    readonly custom?: boolean;
    readonly id?: string;
    readonly inputs?: Record<string, unknown>;
    readonly outputs?: Record<string, unknown>;
    readonly parent?: string;
    /** `<provider urn>::<provider id>`. */
    readonly provider?: string;
    readonly delete?: boolean;
    readonly [field: string]: unknown;
}

/** The engine writes one before it asks a provider to act, and removes it when the provider answered. */
export interface PendingOperation {
    readonly resource: StateResource;
    readonly type: "creating" | "updating" | "deleting" | "reading" | "importing" | string;
}

export interface Checkpoint {
    readonly resources?: readonly StateResource[];
    readonly pending_operations?: readonly PendingOperation[];
    readonly [field: string]: unknown;
}

/** What `stack export` prints and `stack import` reads. */
export interface ExportedState {
    readonly version: number;
    readonly deployment: Checkpoint;
}

const SIG_KEY = SECRET_SIGNATURE.key;
const SECRET_SIG = SECRET_SIGNATURE.secret;

export const HELM_RELEASE = HELM_RELEASE_TYPE;

/** What kind of thing a resource is, for the decisions. */
export type ResourceKind = "helm-release" | "kubernetes-object" | "dynamic" | "random" | "provider" | "other";

export function kindOf(type: string): ResourceKind {
    if (type === HELM_RELEASE) return "helm-release";
    if (type.startsWith("pulumi:providers:")) return "provider";
    if (type.startsWith("kubernetes:")) return "kubernetes-object";
    if (type.startsWith("pulumi-nodejs:dynamic")) return "dynamic";
    if (type.startsWith("random:")) return "random";
    return "other";
}

/** The logical name at the end of a URN. */
export function urnName(urn: string): string {
    return urn.slice(urn.lastIndexOf("::") + 2);
}

/** A value as the program sees it: a secret's plaintext (present in an export with secrets shown) unwrapped. */
export function reveal(value: unknown): unknown {
    if (isSecret(value)) {
        const plaintext = (value as { plaintext?: unknown }).plaintext;
        if (typeof plaintext !== "string")
            throw new Error("the state was exported without its secrets (they are needed to reach the clusters)");
        return JSON.parse(plaintext) as unknown;
    }
    return value;
}

function isSecret(value: unknown): boolean {
    return !!value && typeof value === "object" && (value as Record<string, unknown>)[SIG_KEY] === SECRET_SIG;
}

/** A secret in the form `stack import` encrypts on the way in. */
function secretOf(value: unknown): Record<string, unknown> {
    return { [SIG_KEY]: SECRET_SIG, plaintext: JSON.stringify(value) };
}

/** A string input (a name, a namespace), secret or not. */
export function stringInput(resource: StateResource, key: string): string | undefined {
    const value = reveal(resource.inputs?.[key]);
    return typeof value === "string" ? value : undefined;
}

/** The live resource of a URN (not one marked for deletion after a replacement). */
export function resourceAt(state: Checkpoint, urn: string): StateResource | undefined {
    return (state.resources ?? []).find((r) => r.urn === urn && !r.delete);
}

/** The provider resource a `<urn>::<id>` reference names, recorded or itself pending. */
export function providerOf(state: Checkpoint, reference: string | undefined): StateResource | undefined {
    if (!reference) return undefined;
    const at = reference.lastIndexOf("::");
    const [urn, id] = [reference.slice(0, at), reference.slice(at + 2)];
    const all = [...(state.resources ?? []), ...(state.pending_operations ?? []).map((op) => op.resource)];
    return all.find((r) => r.urn === urn && r.id === id) ?? all.find((r) => r.urn === urn);
}

/** How the kubernetes provider names a Helm release or an object: `<namespace>/<name>`, or the name alone for a cluster-scoped one. */
export function kubernetesId(namespace: string | undefined, name: string): string {
    return namespace ? `${namespace}/${name}` : name;
}

/** One change to the checkpoint. */
export type StateEdit =
    /** The operation is dropped: the provider's next call starts afresh. */
    | { readonly kind: "clear"; readonly urn: string }
    /**
     * A create that finished in the cluster becomes the resource the engine would have recorded;
     * `outputs` are provider bookkeeping to keep (the object's field manager).
     */
    | { readonly kind: "adopt"; readonly urn: string; readonly id: string; readonly outputs?: Readonly<Record<string, unknown>> }
    /** An update that finished in the cluster: the resource takes the inputs it was updated with. */
    | { readonly kind: "record"; readonly urn: string };

/**
 * The checkpoint with the edits applied. An adopted or recorded resource's outputs are its
 * inputs until the provider reads it (the targeted refresh that follows); a Helm release also
 * gets the `__inputs` the kubernetes provider keeps beside its outputs and diffs against, so
 * the next `pulumi up` compares the program with exactly what was installed.
 */
export function applyEdits(exported: ExportedState, edits: readonly StateEdit[]): ExportedState {
    const state = exported.deployment;
    const pending = [...(state.pending_operations ?? [])];
    const resources = [...(state.resources ?? [])];
    const take = (urn: string): PendingOperation => {
        const at = pending.findIndex((op) => op.resource.urn === urn);
        if (at < 0) throw new Error(`no pending operation for ${urn}`);
        return pending.splice(at, 1)[0];
    };
    for (const edit of edits) {
        const op = take(edit.urn);
        if (edit.kind === "adopt") {
            // Appended: everything it refers to (parent, provider, dependencies) was recorded before its create began.
            resources.push({ ...op.resource, id: edit.id, outputs: { ...readableOutputs(op.resource), ...(edit.outputs ?? {}) } });
        } else if (edit.kind === "record") {
            const at = resources.findIndex((r) => r.urn === edit.urn && !r.delete);
            if (at < 0) throw new Error(`no recorded resource ${edit.urn} to update`);
            const old = resources[at];
            resources[at] = {
                ...old,
                inputs: op.resource.inputs,
                ...(op.resource.propertyDependencies !== undefined ? { propertyDependencies: op.resource.propertyDependencies } : {}),
                ...(op.resource.dependencies !== undefined ? { dependencies: op.resource.dependencies } : {}),
                outputs: { ...(old.outputs ?? {}), ...readableOutputs(op.resource) },
            };
        }
    }
    return { ...exported, deployment: { ...state, resources, pending_operations: pending } };
}

/**
 * Set on what this tool records until the provider has read it: a provider's read returns a
 * fresh set of outputs without it, so a resource that still has it was never read.
 */
const UNREAD = "__recoverUnread";

function readableOutputs(resource: StateResource): Record<string, unknown> {
    const inputs = resource.inputs ?? {};
    return kindOf(resource.type) === "helm-release"
        ? { ...inputs, [KUBERNETES_STATE_KEYS.inputs]: secretOf(inputs), [UNREAD]: true }
        : { ...inputs, [UNREAD]: true };
}

/** Resources this tool recorded whose provider read never ran (the refresh after it did not finish): read on the next run. */
export function unreadResources(state: Checkpoint): StateResource[] {
    return (state.resources ?? []).filter((r) => r.outputs?.[UNREAD] === true);
}
