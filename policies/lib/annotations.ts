import { at, isList, isRecord, type Plain, type PlainRecord } from "./known";

/** One pod-annotation map of a release's values, with its path for messages. */
export interface AnnotationMap {
    readonly path: string;
    readonly annotations: PlainRecord;
}

/**
 * Every pod-annotation map in a release's values: each `podAnnotations` at any depth (the
 * services' `<chartKey>.podAnnotations`, the auth callout's top-level one, hook jobs'), and
 * OpenBao's `openbao.server.annotations`. Searching every depth also catches keys set through
 * `releases.<name>.values`, which the stack config's own checks never see.
 */
export function annotationMaps(values: Plain | undefined): AnnotationMap[] {
    const found: AnnotationMap[] = [];
    const walk = (value: Plain | undefined, path: string[]): void => {
        if (isList(value)) value.forEach((item, i) => walk(item, [...path, String(i)]));
        if (!isRecord(value)) return;
        for (const [key, item] of Object.entries(value)) {
            if (key === "podAnnotations" && isRecord(item)) found.push({ path: [...path, key].join("."), annotations: item });
            else walk(item, [...path, key]);
        }
    };
    walk(values, []);
    const openbao = at(values, "openbao", "server", "annotations");
    if (isRecord(openbao)) found.push({ path: "openbao.server.annotations", annotations: openbao });
    return found;
}
