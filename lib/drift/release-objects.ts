import { excerpt } from "../http/client";
import { listItems, type Kube } from "../kubernetes/client";
import type { Discovery } from "../kubernetes/discovery";
import { loadAllYaml } from "../kubernetes/yaml";
import { differences } from "./compare";
import { changedByOf, describeChangedBy, type ManagedFieldsEntry } from "./managers";
import { formatPath, type FieldPath } from "./path";
import { hidesValue, ignoredBy, type DriftIgnoreRule } from "./rules";

/** The manager the dry-run applies as: it owns nothing, so applying as it changes nothing another manager set. */
export const DRIFT_FIELD_MANAGER = "nvcf-self-managed-drift";

/** One changed field, ready to print: values hidden where they may be credentials. */
export interface FieldReport {
    readonly path: string;
    readonly recorded: string;
    readonly live: string;
    readonly changedBy: string;
    /** The manager that holds the live value (absent when none does). */
    readonly manager?: string;
}

/** An object of the release's manifest that is not as the release made it, or could not be compared. */
export interface ObjectDrift {
    readonly kind: string;
    readonly name: string;
    readonly namespace?: string;
    readonly state: "missing" | "changed" | "unknown";
    readonly fields: readonly FieldReport[];
    /** Why an object could not be compared. */
    readonly detail?: string;
}

export interface ReleaseObjects {
    readonly release: string;
    readonly namespace: string;
    readonly revision: number;
    /** The manifest's objects. */
    readonly objects: number;
    readonly drifted: readonly ObjectDrift[];
    /** Fields that differ but a rule ignores. */
    readonly ignored: number;
}

export interface ManifestObject {
    readonly apiVersion: string;
    readonly kind: string;
    readonly metadata: { readonly name: string; readonly namespace?: string } & Record<string, unknown>;
}

const isManifestObject = (o: unknown): o is ManifestObject => {
    const m = o as Partial<ManifestObject> | null;
    return !!m && typeof m.apiVersion === "string" && typeof m.kind === "string" && typeof m.metadata?.name === "string";
};

const show = (v: unknown) => (v === undefined ? "(absent)" : excerpt(JSON.stringify(v), 80));

/** How many objects are compared at once: enough to finish a release in a round trip or two, few enough for a busy API server. */
const PARALLEL = 8;

async function eachLimited<T, R>(items: readonly T[], f: (t: T) => Promise<R>): Promise<R[]> {
    const out: R[] = new Array(items.length);
    let next = 0;
    const worker = async () => {
        while (next < items.length) {
            const i = next++;
            out[i] = await f(items[i]);
        }
    };
    await Promise.all(Array.from({ length: Math.min(PARALLEL, items.length) }, worker));
    return out;
}

/** The objects the HorizontalPodAutoscalers (`autoscaling/v2`) scale, as `Kind/name`. Pure. */
export function autoscaledTargets(hpas: readonly { spec?: { scaleTargetRef?: { kind?: string; name?: string } } }[]): Set<string> {
    return new Set(
        hpas.flatMap((h) => (h.spec?.scaleTargetRef?.kind ? [`${h.spec.scaleTargetRef.kind}/${h.spec.scaleTargetRef.name}`] : [])),
    );
}

/** One object of the manifest compared: its report (undefined when as recorded), and what a correction needs. */
export interface ObjectComparison {
    readonly drift?: ObjectDrift;
    /** The recorded object, with the namespace Helm gives it. */
    readonly recorded: ManifestObject;
    /** Its API path, when the kind is served. */
    readonly apiPath?: string;
    /** The dry-run's answer: the live object with the recorded fields applied. */
    readonly applied?: unknown;
    /** The drifted fields' paths (the ignored ones left out). */
    readonly paths: readonly FieldPath[];
}

export interface ReleaseComparison {
    readonly objects: readonly ObjectComparison[];
    readonly ignored: number;
}

/**
 * The objects of a release's recorded manifest against the live ones: each is read, and the
 * recorded object is applied to it in a server-side dry-run (nothing is written); the fields
 * where the live object differs from that result are the drift, named with the manager that
 * holds each. An object that is gone is `missing`; one that cannot be read or applied is
 * `unknown`, with the API server's answer.
 */
export async function compareRelease(
    kube: Kube,
    discovery: Discovery,
    release: { readonly namespace: string; readonly manifest: string },
    rules: readonly DriftIgnoreRule[],
): Promise<ReleaseComparison> {
    const manifest = loadAllYaml(release.manifest).filter(isManifestObject);
    const scaled = manifest.some((o) => o.kind === "Deployment" || o.kind === "StatefulSet")
        ? autoscaledTargets(await listItems(kube, `/apis/autoscaling/v2/namespaces/${release.namespace}/horizontalpodautoscalers`))
        : new Set<string>();
    let ignored = 0;
    const objects = await eachLimited(manifest, async (o): Promise<ObjectComparison> => {
        const namespace = o.metadata.namespace ?? release.namespace;
        const id = { kind: o.kind, name: o.metadata.name };
        let apiPath: string;
        let namespaced: boolean;
        try {
            ({ path: apiPath, namespaced } = await discovery.locate(o.apiVersion, o.kind, o.metadata.name, namespace));
        } catch (error) {
            return { recorded: o, paths: [], drift: { ...id, state: "unknown", fields: [], detail: (error as Error).message } };
        }
        const where = namespaced ? { namespace } : {};
        const recorded = { ...o, metadata: { ...o.metadata, ...where } };
        const unknown = (detail: string): ObjectComparison => ({
            recorded,
            apiPath,
            paths: [],
            drift: { ...id, ...where, state: "unknown", fields: [], detail },
        });
        const live = await kube.request("GET", apiPath);
        if (live.status === 404) return { recorded, apiPath, paths: [], drift: { ...id, ...where, state: "missing", fields: [] } };
        if (live.status !== 200) return unknown(`GET answered HTTP ${live.status}: ${excerpt(live.text, 200)}`);
        const query = `dryRun=All&fieldManager=${DRIFT_FIELD_MANAGER}&force=true`;
        const applied = await kube.request("PATCH", `${apiPath}?${query}`, recorded, "application/apply-patch+yaml");
        if (applied.status !== 200 && applied.status !== 201) {
            return unknown(`the dry-run apply answered HTTP ${applied.status}: ${excerpt(applied.text, 200)}`);
        }
        const target = { ...id, autoscaled: scaled.has(`${o.kind}/${o.metadata.name}`) };
        const fields: FieldReport[] = [];
        const paths: FieldPath[] = [];
        for (const d of differences(applied.body, live.body)) {
            if (ignoredBy(rules, target, d.path)) {
                ignored++;
                continue;
            }
            const by = changedByOf(live.body as { metadata?: { managedFields?: ManagedFieldsEntry[] } }, d.path);
            const hidden = hidesValue(o.kind, d.path);
            paths.push(d.path);
            fields.push({
                path: formatPath(d.path),
                recorded: hidden ? "(hidden)" : show(d.recorded),
                live: hidden ? "(hidden)" : show(d.live),
                changedBy: describeChangedBy(by),
                ...(by?.owns ? { manager: by.manager } : {}),
            });
        }
        const drift: ObjectDrift | undefined = fields.length > 0 ? { ...id, ...where, state: "changed", fields } : undefined;
        return { recorded, apiPath, applied: applied.body, paths, ...(drift ? { drift } : {}) };
    });
    return { objects, ignored };
}

/** `compareRelease`, as the status reports it. */
export async function releaseObjectDrift(
    kube: Kube,
    discovery: Discovery,
    release: { readonly name: string; readonly namespace: string; readonly revision: number; readonly manifest: string },
    rules: readonly DriftIgnoreRule[],
): Promise<ReleaseObjects> {
    const compared = await compareRelease(kube, discovery, release, rules);
    return {
        release: release.name,
        namespace: release.namespace,
        revision: release.revision,
        objects: compared.objects.length,
        drifted: compared.objects.flatMap((o) => (o.drift ? [o.drift] : [])),
        ignored: compared.ignored,
    };
}
