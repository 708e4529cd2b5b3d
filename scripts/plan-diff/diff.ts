import { HELM_RELEASE, ReleaseInfo, releaseInfo, RenderedResource, RenderedStack } from "../lib/rendered";
import { replacementFields } from "./replacement";
import { diffValues, ValueChange } from "./value-diff";

/** A dynamic resource's type prefix, and the input that references its provider's code (with the code's digest). */
const DYNAMIC = "pulumi-nodejs:dynamic/";
const PROVIDER_CODE = "__provider";

/** A resource in both renders that differs. */
export interface ResourceChange {
    readonly urn: string;
    readonly type: string;
    readonly name: string;
    /** The release as the working tree declares it, for Helm releases. */
    readonly release?: ReleaseInfo;
    /** Why Pulumi replaces it (the fields that force it); empty for an in-place update. */
    readonly replacedBecause: readonly string[];
    /** Input changes; for a Helm release, those outside `values`; never the provider code. */
    readonly inputs: readonly ValueChange[];
    /** A dynamic resource whose provider code changed: Pulumi updates it to run the new code. */
    readonly codeChanged: boolean;
    /** For a Helm release: its values' changes, paths relative to `values`. */
    readonly values: readonly ValueChange[];
    readonly dependsOnAdded: readonly string[];
    readonly dependsOnRemoved: readonly string[];
    readonly provider?: { readonly before: string | null; readonly after: string | null };
    readonly parent?: { readonly before: string | null; readonly after: string | null };
}

export interface PlanDiff {
    readonly stack: string;
    readonly added: readonly RenderedResource[];
    readonly removed: readonly RenderedResource[];
    readonly replaced: readonly ResourceChange[];
    readonly changed: readonly ResourceChange[];
}

export function hasChanges(diff: PlanDiff): boolean {
    return diff.added.length + diff.removed.length + diff.replaced.length + diff.changed.length > 0;
}

/**
 * What applying `head` over `base` does, resource by resource (matched by URN, as the engine
 * does). A missing render (no stack file on that side) is an empty stack.
 */
export function diffStacks(stack: string, base: RenderedStack | null, head: RenderedStack | null): PlanDiff {
    const before = new Map((base?.resources ?? []).map((r) => [r.urn, r]));
    const after = new Map((head?.resources ?? []).map((r) => [r.urn, r]));
    const added = [...after.values()].filter((r) => !before.has(r.urn));
    const removed = [...before.values()].filter((r) => !after.has(r.urn));
    const changes = [...after.values()]
        .filter((r) => before.has(r.urn))
        .map((r) => compare(before.get(r.urn)!, r))
        .filter((c): c is ResourceChange => c !== undefined);

    // A replaced provider replaces every resource it manages, changed or not.
    const replacedProviders = new Set(changes.filter((c) => c.replacedBecause.length > 0).map((c) => c.urn));
    const byUrn = new Map(changes.map((c) => [c.urn, c]));
    for (const r of after.values()) {
        if (r.provider === null || !replacedProviders.has(r.provider) || !before.has(r.urn)) continue;
        const change = byUrn.get(r.urn) ?? emptyChange(r);
        byUrn.set(r.urn, { ...change, replacedBecause: [...change.replacedBecause, "its provider is replaced"] });
    }
    const all = [...byUrn.values()].sort((a, b) => (a.urn < b.urn ? -1 : a.urn > b.urn ? 1 : 0));
    return {
        stack,
        added,
        removed,
        replaced: all.filter((c) => c.replacedBecause.length > 0),
        changed: all.filter((c) => c.replacedBecause.length === 0),
    };
}

function compare(before: RenderedResource, after: RenderedResource): ResourceChange | undefined {
    const allChanges = diffValues(before.inputs, after.inputs);
    const isCode = (c: ValueChange) => after.type.startsWith(DYNAMIC) && c.path.length === 1 && c.path[0] === PROVIDER_CODE;
    const inputChanges = allChanges.filter((c) => !isCode(c));
    const codeChanged = allChanges.some(isCode);
    const isRelease = after.type === HELM_RELEASE;
    const inValues = (c: ValueChange) => isRelease && c.path[0] === "values";
    const dependsOnAdded = after.dependsOn.filter((u) => !before.dependsOn.includes(u));
    const dependsOnRemoved = before.dependsOn.filter((u) => !after.dependsOn.includes(u));
    const providerChanged = before.provider !== after.provider;
    const parentChanged = before.parent !== after.parent;
    if (
        !codeChanged &&
        inputChanges.length === 0 &&
        dependsOnAdded.length + dependsOnRemoved.length === 0 &&
        !providerChanged &&
        !parentChanged
    ) {
        return undefined;
    }
    const replacedBecause = replacementFields(after.type, inputChanges, before.inputs, after.inputs);
    // Another provider means another cluster or configuration: the engine replaces.
    if (providerChanged) replacedBecause.push("provider");
    return {
        ...emptyChange(after),
        replacedBecause,
        inputs: inputChanges.filter((c) => !inValues(c)),
        codeChanged,
        values: inputChanges.filter(inValues).map((c) => ({ ...c, path: c.path.slice(1) })),
        dependsOnAdded,
        dependsOnRemoved,
        ...(providerChanged ? { provider: { before: before.provider, after: after.provider } } : {}),
        ...(parentChanged ? { parent: { before: before.parent, after: after.parent } } : {}),
    };
}

function emptyChange(r: RenderedResource): ResourceChange {
    const release = releaseInfo(r);
    return {
        urn: r.urn,
        type: r.type,
        name: r.name,
        ...(release ? { release } : {}),
        replacedBecause: [],
        inputs: [],
        codeChanged: false,
        values: [],
        dependsOnAdded: [],
        dependsOnRemoved: [],
    };
}
