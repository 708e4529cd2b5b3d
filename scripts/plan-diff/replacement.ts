import { HELM_RELEASE } from "../lib/rendered";
import { formatPath, overlaps, PathPart, ValueChange } from "./value-diff";

/**
 * The input fields whose change makes Pulumi delete and recreate a resource rather than update
 * it, for the resource kinds this program declares. Each comes from the provider's own rule:
 * a Helm release cannot be renamed or moved; a Kubernetes object's name and namespace (and a
 * Secret's type) are immutable; every input of a random resource is replace-on-change (a new
 * Cassandra password); a Kubernetes provider is replaced when its clusterIdentifier changes,
 * or, without one, when the cluster it points at may have.
 */
function forcingPaths(type: string, before: Record<string, unknown>, after: Record<string, unknown>): PathPart[][] | "all" {
    if (type === HELM_RELEASE) return [["name"], ["namespace"]];
    if (type.startsWith("random:")) return "all";
    if (type === "pulumi:providers:kubernetes") {
        const pinned = before.clusterIdentifier !== undefined || after.clusterIdentifier !== undefined;
        return pinned ? [["clusterIdentifier"]] : [["kubeconfig"], ["context"]];
    }
    if (type.startsWith("kubernetes:")) {
        const paths: PathPart[][] = [
            ["metadata", "name"],
            ["metadata", "namespace"],
        ];
        if (type === "kubernetes:core/v1:Secret") paths.push(["type"]);
        return paths;
    }
    return [];
}

/** The changed fields that force a replacement, as paths; empty for an in-place update. */
export function replacementFields(
    type: string,
    changes: readonly ValueChange[],
    before: Record<string, unknown>,
    after: Record<string, unknown>,
): string[] {
    const forcing = forcingPaths(type, before, after);
    const hits = changes.filter((c) => forcing === "all" || forcing.some((p) => overlaps(c.path, p)));
    return [...new Set(hits.map((c) => formatPath(c.path)))];
}
