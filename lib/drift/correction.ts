import { HELM_OWNERSHIP } from "../contracts/helm";
import { isObject } from "./compare";
import type { FieldPath } from "./path";

type Json = Record<string, unknown>;

/**
 * A JSON merge patch (RFC 7386) that puts the drifted fields back: each field as the recorded
 * object applied to the live one has it (`applied`: the dry-run's answer). A merge patch replaces
 * lists whole, so a field inside a list takes the whole list from `applied`, which holds the
 * recorded items and keeps what other managers added; a field the recorded object lacks is
 * removed (null). The same patch works for every kind, custom ones included. Pure.
 */
export function correctionPatch(applied: unknown, paths: readonly FieldPath[]): Json {
    const patch: Json = {};
    for (const path of paths) {
        let source: unknown = applied;
        let target: Json = patch;
        for (let i = 0; i < path.length; i++) {
            const { key, index } = path[i];
            if (index !== undefined) break;
            const value = isObject(source) ? source[key] : undefined;
            const next = path[i + 1];
            const last = i === path.length - 1 || next.index !== undefined;
            if (last) {
                target[key] = value === undefined ? null : value;
                break;
            }
            if (!isObject(target[key])) target[key] = {};
            target = target[key] as Json;
            source = value;
        }
    }
    return patch;
}

/** A missing object as Helm would create it again: the recorded object with the ownership label and annotations Helm adds. */
export function recreated<T extends { metadata: object }>(recorded: T, release: { readonly name: string; readonly namespace: string }): T {
    const { labels, annotations } = recorded.metadata as { labels?: unknown; annotations?: unknown };
    return {
        ...recorded,
        metadata: {
            ...recorded.metadata,
            labels: { ...(isObject(labels) ? labels : {}), [HELM_OWNERSHIP.managedByLabel]: HELM_OWNERSHIP.managedBy },
            annotations: {
                ...(isObject(annotations) ? annotations : {}),
                [HELM_OWNERSHIP.releaseNameAnnotation]: release.name,
                [HELM_OWNERSHIP.releaseNamespaceAnnotation]: release.namespace,
            },
        },
    };
}
