import type * as pulumi from "@pulumi/pulumi";
import { getObject, listItems, type Kube } from "../../lib/kubernetes/client";
import { excerpt } from "../../lib/http/client";
import type { ClusterReach } from "../../lib/cluster-access/reach";
import { defineProvider } from "./kit";

export interface NvcaTeardownInputs {
    readonly clusterName: string;
    readonly reach: ClusterReach;
    readonly crds: string[];
    readonly namespaces: string[];
    readonly timeoutSeconds: number;
    /** Clear the finalizers of what still holds these CRDs and namespaces at the timeout. */
    readonly forceFinalizers: boolean;
}

/**
 * Nothing on create. On delete (after the operator's uninstall, which depends on it): deletes
 * NVCA's CRDs and namespaces, waits for them to go, and reports a namespace or CRD stuck
 * Terminating with what holds it; only with `forceFinalizers` does it clear finalizers, and only
 * on its own CRDs' objects and its own namespaces.
 */
export const NvcaTeardownProvider = defineProvider<NvcaTeardownInputs, NvcaTeardownInputs>({
    describe: (inputs) => `the NVCA teardown of ${inputs.clusterName}`,
    id: (inputs) => `nvca-teardown-${inputs.clusterName}`,
    create: async (inputs) => inputs,
    delete: async (_id, props, ctx) => teardown(await ctx.kube(props.reach), props, ctx.options.pollMs ?? 2000),
});

async function del(kube: Kube, path: string): Promise<void> {
    const res = await kube.request("DELETE", path, { kind: "DeleteOptions", apiVersion: "v1", propagationPolicy: "Background" });
    if (res.status !== 200 && res.status !== 202 && res.status !== 404 && res.status !== 409) {
        throw new Error(`DELETE ${path} answered HTTP ${res.status}: ${excerpt(res.text, 200)}`);
    }
}

/** The CRDs' and namespaces' removal, with the report of whatever is stuck. Exported for the tests. */
export async function teardown(kube: Kube, props: NvcaTeardownInputs, pollMs: number): Promise<void> {
    for (const crd of props.crds) await del(kube, `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd}`);
    for (const ns of props.namespaces) await del(kube, `/api/v1/namespaces/${ns}`);
    let deadline = Date.now() + props.timeoutSeconds * 1000;
    let forced = false;
    for (;;) {
        const crds = (
            await Promise.all(props.crds.map((c) => getObject(kube, `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${c}`)))
        ).filter(Boolean);
        const namespaces = (await Promise.all(props.namespaces.map((n) => getObject(kube, `/api/v1/namespaces/${n}`)))).filter(Boolean);
        if (crds.length === 0 && namespaces.length === 0) return;
        if (Date.now() >= deadline) {
            if (props.forceFinalizers && !forced) {
                forced = true;
                for (const crd of crds) await clearObjectFinalizers(kube, crd);
                for (const ns of namespaces) await forceNamespace(kube, ns.metadata.name);
                // The API server needs a moment to finish what the cleared finalizers held.
                deadline = Date.now() + Math.min(60_000, props.timeoutSeconds * 1000);
                continue;
            }
            const stuck = [
                ...crds.map((c) => `CRD ${c.metadata.name} (${crdHolder(c)})`),
                ...namespaces.map((n) => `namespace ${n.metadata.name} (${namespaceHolder(n)})`),
            ];
            throw new Error(
                `the NVCA teardown of ${props.clusterName} is stuck after ${props.timeoutSeconds} s${forced ? ", even after clearing finalizers" : ""}: ${stuck.join("; ")}. ` +
                    (forced
                        ? "Look at what is left (kubectl get ns <ns> -o yaml), then run pulumi destroy again"
                        : "Remove the finalizers of what holds them (the NVCA operator, now uninstalled, would have), or set " +
                          `computePlanes[].teardown.forceFinalizers: true for ${props.clusterName} and run pulumi destroy again`),
            );
        }
        await new Promise((r) => setTimeout(r, pollMs));
    }
}

/** What a Terminating namespace reports holding it: its deletion conditions, else its finalizers. */
export function namespaceHolder(ns: {
    status?: { phase?: string; conditions?: { type?: string; status?: string; message?: string }[] };
    spec?: { finalizers?: string[] };
    metadata?: { deletionTimestamp?: string };
}): string {
    if (!ns.metadata?.deletionTimestamp) return "not being deleted";
    const held = (ns.status?.conditions ?? [])
        .filter((c) => c.status === "True" && /ContentRemaining|FinalizersRemaining|Failure/.test(c.type ?? ""))
        .map((c) => c.message ?? c.type);
    if (held.length > 0) return held.join("; ");
    const finalizers = ns.spec?.finalizers ?? [];
    return finalizers.length > 0 ? `Terminating, finalizers ${finalizers.join(", ")} remain` : "Terminating";
}

function crdHolder(crd: {
    status?: { conditions?: { type?: string; status?: string; message?: string }[] };
    metadata?: { finalizers?: string[] };
}): string {
    const terminating = (crd.status?.conditions ?? []).find((c) => c.type === "Terminating" && c.status === "True");
    return terminating?.message ?? `finalizers ${(crd.metadata?.finalizers ?? []).join(", ") || "none"}`;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function clearObjectFinalizers(kube: Kube, crd: any): Promise<void> {
    const group = crd.spec?.group;
    const plural = crd.spec?.names?.plural;
    const version = (crd.spec?.versions ?? []).find((v: { storage?: boolean }) => v.storage)?.name;
    if (!group || !plural || !version) return;
    for (const obj of await listItems(kube, `/apis/${group}/${version}/${plural}`)) {
        if (!(obj.metadata?.finalizers ?? []).length) continue;
        const ns = obj.metadata.namespace ? `/namespaces/${obj.metadata.namespace}` : "";
        await kube.request(
            "PATCH",
            `/apis/${group}/${version}${ns}/${plural}/${obj.metadata.name}`,
            { metadata: { finalizers: null } },
            "application/merge-patch+json",
        );
    }
}

/** As NVIDIA's force-cleanup script: pods deleted at once, then the namespace's own finalizer cleared. */
async function forceNamespace(kube: Kube, name: string): Promise<void> {
    for (const pod of await listItems(kube, `/api/v1/namespaces/${name}/pods`)) {
        await kube.request("DELETE", `/api/v1/namespaces/${name}/pods/${pod.metadata.name}`, {
            kind: "DeleteOptions",
            apiVersion: "v1",
            gracePeriodSeconds: 0,
        });
    }
    const ns = await getObject(kube, `/api/v1/namespaces/${name}`);
    if (!ns) return;
    await kube.request("PUT", `/api/v1/namespaces/${name}/finalize`, { ...ns, spec: { ...ns.spec, finalizers: [] } });
}

export type NvcaTeardownArgs = { [K in keyof NvcaTeardownInputs]: pulumi.Input<NvcaTeardownInputs[K]> };
