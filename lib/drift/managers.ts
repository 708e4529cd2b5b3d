import { canonicalJson } from "../text/canonical-json";
import { isObject } from "./compare";
import type { FieldPath } from "./path";

/**
 * One entry of an object's `metadata.managedFields`: which manager set which fields, by an
 * apply or an update, through the object or a subresource (`scale`, `status`).
 */
export interface ManagedFieldsEntry {
    readonly manager?: string;
    readonly operation?: string;
    readonly subresource?: string;
    readonly time?: string;
    readonly fieldsV1?: Record<string, unknown>;
}

/** Who changed a field, as the live object tells it. */
export interface ChangedBy {
    readonly manager: string;
    readonly operation: string;
    readonly subresource?: string;
    readonly time?: string;
    /** false: no manager holds the field (it was removed), and this is the object's latest change instead. */
    readonly owns: boolean;
}

type Node = Record<string, unknown>;
const sameJson = (a: unknown, b: unknown) => canonicalJson(a) === canonicalJson(b);

/** The child of a fieldsV1 set that stands for list item `item` at `index`: `k:{merge keys}`, `v:value` or `i:index`. */
function itemKey(node: Node, item: unknown, index: number): string | undefined {
    for (const key of Object.keys(node)) {
        if (key === `i:${index}`) return key;
        if (key.startsWith("v:") && sameJson(JSON.parse(key.slice(2)), item)) return key;
        if (key.startsWith("k:") && isObject(item)) {
            const keys = JSON.parse(key.slice(2)) as Node;
            if (Object.entries(keys).every(([k, v]) => sameJson(item[k], v))) return key;
        }
    }
    return undefined;
}

/** Whether the entry's field set holds `path` of `live` (a leaf reached early is an atomic field, held whole). */
function holds(entry: ManagedFieldsEntry, live: unknown, path: FieldPath): boolean {
    let node: unknown = entry.fieldsV1;
    let cur: unknown = live;
    for (const seg of path) {
        if (!isObject(node)) return false;
        if (Object.keys(node).length === 0) return true;
        let key: string | undefined;
        if (seg.index === undefined) {
            key = `f:${seg.key}`;
            cur = isObject(cur) ? cur[seg.key] : undefined;
        } else {
            const item = Array.isArray(cur) ? cur[seg.index] : undefined;
            key = itemKey(node, item, seg.index);
            cur = item;
        }
        if (key === undefined || !(key in node)) return false;
        node = node[key];
    }
    return true;
}

const newest = (a: ManagedFieldsEntry, b: ManagedFieldsEntry) => (b.time ?? "").localeCompare(a.time ?? "");

function changedBy(e: ManagedFieldsEntry, owns: boolean): ChangedBy {
    return {
        manager: e.manager ?? "(unnamed)",
        operation: e.operation ?? "",
        ...(e.subresource ? { subresource: e.subresource } : {}),
        ...(e.time ? { time: e.time } : {}),
        owns,
    };
}

/**
 * Who holds a field of the live object (`metadata.managedFields`, FieldsV1): the newest of the
 * managers whose set holds it; when none does (the field was removed), the object's newest entry.
 * Pure; undefined when the object has no managedFields.
 */
export function changedByOf(
    live: { metadata?: { managedFields?: readonly ManagedFieldsEntry[] } },
    path: FieldPath,
): ChangedBy | undefined {
    const entries = [...(live.metadata?.managedFields ?? [])].sort(newest);
    const holder = entries.find((e) => holds(e, live, path));
    if (holder) return changedBy(holder, true);
    return entries[0] ? changedBy(entries[0], false) : undefined;
}

/** `kubectl-edit (Update, 2026-12-04T16:00:00Z)`; for a removed field, who changed the object last. */
export function describeChangedBy(c: ChangedBy | undefined): string {
    if (!c) return "who changed it is not recorded (the object has no managedFields)";
    const how = [c.operation + (c.subresource ? ` of ${c.subresource}` : ""), c.time].filter(Boolean).join(", ");
    const who = `${c.manager}${how ? ` (${how})` : ""}`;
    return c.owns ? `changed by ${who}` : `no manager holds it (removed); the object's latest change: ${who}`;
}
