/**
 * A place in a Kubernetes object: field names, and list items named by their `name` (the merge
 * key of containers, env, ports, volumes, ...) or their position. `index` is the item's position
 * in the live list, which managedFields are matched against (-1: the live list lacks it).
 */
export interface Segment {
    readonly key: string;
    /** Set on a list item. */
    readonly index?: number;
}

export type FieldPath = readonly Segment[];

const PLAIN = /^[A-Za-z_$][\w$-]*$/;

/** `spec.template.spec.containers[api].image`, `metadata.annotations[kubectl.kubernetes.io/restartedAt]`. */
export function formatPath(path: FieldPath): string {
    return path.map((s, i) => (s.index === undefined && PLAIN.test(s.key) ? (i === 0 ? s.key : `.${s.key}`) : `[${s.key}]`)).join("");
}

/** The segments of a path written as `formatPath` writes it (`*` within a segment matches anything there). */
export function parsePath(text: string): string[] {
    const out: string[] = [];
    const re = /\[([^\]]*)\]|([^.[\]]+)/g;
    for (let m = re.exec(text); m; m = re.exec(text)) out.push(m[1] ?? m[2]);
    return out;
}

const glob = (pattern: string) =>
    new RegExp(
        `^${pattern
            .split("*")
            .map((p) => p.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
            .join(".*")}$`,
    );

/** Whether `pattern` (a path with `*` wildcards) is `path` or a parent of it. */
export function pathMatches(pattern: string, path: FieldPath): boolean {
    const want = parsePath(pattern);
    return want.length > 0 && want.length <= path.length && want.every((p, i) => glob(p).test(path[i].key));
}
