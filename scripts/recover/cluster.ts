import * as fs from "node:fs";
import { releaseHistory, type ReleaseRevision } from "../../lib/health/helm-releases";
import { getObject, httpKube, listItems, type Kube } from "../../lib/kubernetes/client";
import { apiServer, type KubeAccess } from "../../lib/cluster-access/access";
import { reveal, urnName, type StateResource } from "./state";
import { KUBERNETES_FIELD_MANAGER_PREFIX } from "../../lib/contracts/pulumi-state";

/**
 * How recovery reaches a cluster: exactly as the stack's kubernetes provider does, from the
 * provider resource's own inputs (its kubeconfig, contents or a path, and context; without a
 * kubeconfig, $KUBECONFIG or ~/.kube/config, as the provider falls back).
 *
 * Not the settings' route (lib/cluster-access/route.ts), which the program, status and upgrade
 * share: the pending operations were made through the provider the state records, and the stack
 * file may have changed since the run that was killed (another context, a plane moved to EKS).
 * Only the client is shared: apiServer and httpKube, as status, upgrade and the dynamic providers connect.
 */
export function providerAccess(provider: StateResource): KubeAccess {
    const kubeconfig = reveal(provider.inputs?.kubeconfig);
    const context = reveal(provider.inputs?.context);
    const source = `the kubeconfig of the stack's kubernetes provider ${urnName(provider.urn)}`;
    const text =
        typeof kubeconfig === "string" && kubeconfig !== "" && !kubeconfig.includes("\n") && fs.existsSync(kubeconfig)
            ? fs.readFileSync(kubeconfig, "utf8")
            : kubeconfig;
    return {
        ...(typeof text === "string" && text !== "" ? { kubeconfig: text } : {}),
        ...(typeof context === "string" && context !== "" ? { context } : {}),
        source,
    };
}

/** A client for a cluster; the tests give a fake one. */
export type Connect = (access: KubeAccess) => Promise<Kube>;

export const connectWithKubeconfig: Connect = async (access) =>
    httpKube(await apiServer(access), { timeoutMs: 30_000, retries: 2, retryDelayMs: 500 });

/** A PersistentVolumeClaim of a release. */
export interface Claim {
    readonly name: string;
    /** Bound to a volume (`status.phase` Bound, core/v1 ClaimBound): only then can anything have been written to it. */
    readonly bound: boolean;
    readonly createdAt?: string;
}

/** A Helm release as its cluster has it. */
export interface HelmFacts {
    /** Every revision, oldest first; empty when the release is not installed. */
    readonly history: readonly ReleaseRevision[];
    /** PersistentVolumeClaims in its namespace that belong to it (by label, by name, or from its StatefulSets' templates), by name. */
    readonly claims: readonly Claim[];
    /** Its newest manifest has a PersistentVolumeClaim or a StatefulSet with volumeClaimTemplates. */
    readonly declaresVolumes: boolean;
}

interface ManifestObject {
    readonly kind?: string;
    readonly metadata?: { readonly name?: string };
    readonly spec?: { readonly volumeClaimTemplates?: readonly { readonly metadata?: { readonly name?: string } }[] };
}

export async function helmFacts(kube: Kube, namespace: string, name: string): Promise<HelmFacts> {
    const history = await releaseHistory(kube, namespace, name);
    if (history.length === 0) return { history, claims: [], declaresVolumes: false };
    const { loadAllYaml } = await import("@kubernetes/client-node");
    const objects: ManifestObject[] = [];
    for (const rev of history) {
        try {
            objects.push(...(loadAllYaml(rev.manifest) as (ManifestObject | null)[]).filter((o): o is ManifestObject => !!o));
        } catch {
            // A manifest this tool cannot parse says nothing about volumes; the labels and the catalog still do.
        }
    }
    const declared = new Set(objects.filter((o) => o.kind === "PersistentVolumeClaim").map((o) => o.metadata?.name ?? ""));
    // A StatefulSet's claims are named <template>-<statefulset>-<ordinal>.
    const templates = objects
        .filter((o) => o.kind === "StatefulSet")
        .flatMap((o) => (o.spec?.volumeClaimTemplates ?? []).map((t) => `${t.metadata?.name ?? ""}-${o.metadata?.name ?? ""}-`));
    const pvcs = (await listItems(kube, `/api/v1/namespaces/${namespace}/persistentvolumeclaims`)) as {
        metadata?: { name?: string; labels?: Record<string, string>; creationTimestamp?: string };
        status?: { phase?: string };
    }[];
    const claims = pvcs
        .filter((p) => {
            const pvc = p.metadata?.name ?? "";
            const labels = p.metadata?.labels ?? {};
            return (
                labels["app.kubernetes.io/instance"] === name ||
                labels.release === name ||
                declared.has(pvc) ||
                templates.some((t) => pvc.startsWith(t) && /^\d+$/.test(pvc.slice(t.length)))
            );
        })
        .map((p) => ({
            name: p.metadata?.name ?? "",
            bound: p.status?.phase === "Bound",
            ...(p.metadata?.creationTimestamp ? { createdAt: p.metadata.creationTimestamp } : {}),
        }))
        .sort((a, b) => a.name.localeCompare(b.name));
    return { history, claims, declaresVolumes: declared.size > 0 || templates.length > 0 };
}

/** A Kubernetes object of the stack, as the API server has it. */
export interface ObjectFacts {
    /** The API serves the object's kind (a custom resource's CRD may not exist yet). */
    readonly served: boolean;
    readonly namespaced: boolean;
    readonly exists: boolean;
    /** The kubernetes provider's field manager on it (the provider created or applied it), if any. */
    readonly fieldManager?: string;
}

/** The object the inputs of a kubernetes resource describe (apiVersion, kind, metadata). */
export async function objectFacts(
    kube: Kube,
    apiVersion: string,
    kind: string,
    namespace: string | undefined,
    name: string,
): Promise<ObjectFacts> {
    const base = apiVersion.includes("/") ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
    const discovery = await getObject(kube, base);
    const resource = ((discovery?.resources ?? []) as { name: string; kind: string; namespaced: boolean }[]).find(
        (r) => r.kind === kind && !r.name.includes("/"),
    );
    if (!resource) return { served: false, namespaced: false, exists: false };
    // The provider puts a namespaced object without a namespace into "default".
    const ns = resource.namespaced ? (namespace ?? "default") : undefined;
    const path = `${base}${ns ? `/namespaces/${encodeURIComponent(ns)}` : ""}/${resource.name}/${encodeURIComponent(name)}`;
    const obj = await getObject(kube, path);
    const managers = ((obj?.metadata?.managedFields ?? []) as { manager?: string }[]).map((m) => m.manager ?? "");
    // Server-side apply: pulumi-kubernetes-<random>, one per create; client-side apply: pulumi-kubernetes.
    const fieldManager = managers.find((m) => m.startsWith(KUBERNETES_FIELD_MANAGER_PREFIX));
    return { served: true, namespaced: resource.namespaced, exists: obj !== undefined, ...(fieldManager ? { fieldManager } : {}) };
}
