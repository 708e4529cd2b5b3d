import type * as pulumi from "@pulumi/pulumi";
import { excerpt } from "../../lib/http/client";
import type { Kube } from "../../lib/kubernetes/client";
import { discovery } from "../../lib/kubernetes/discovery";
import type { ClusterReach } from "../../lib/cluster-access/reach";
import { HELM_FIELD_MANAGER } from "../../lib/contracts/helm";
import { releaseHistory } from "../../lib/health/helm-releases";
import { correctionPatch, recreated } from "../../lib/drift/correction";
import { compareRelease, type ObjectComparison } from "../../lib/drift/release-objects";
import { BUILT_IN_IGNORES, userRules, type UserDriftIgnore } from "../../lib/drift/rules";
import { defineProvider, type ProviderContext } from "./kit";
import { messageOf } from "../../lib/text/message-of";

export interface DriftCorrectionInputs {
    readonly reach: ClusterReach;
    readonly release: string;
    readonly namespace: string;
    /** The release's revision: a new one is a new manifest to hold its objects to. */
    readonly revision: number;
    readonly ignore: readonly UserDriftIgnore[];
    /** PersistentVolumeClaims that may be re-created; any other is left as it is (it holds data). */
    readonly claims: readonly string[];
}

export interface DriftCorrectionOutputs extends DriftCorrectionInputs {
    /** What the last run put back: `<Kind> <ns>/<name>: <fields>` or `<Kind> <ns>/<name>: re-created`. */
    readonly corrected: string[];
    /** What differs and is left: a claim not named, an object that could not be compared; after a refresh, all drift found. */
    readonly drifted: string[];
}

const nameOf = (o: ObjectComparison) =>
    `${o.recorded.kind} ${o.recorded.metadata.namespace ? `${o.recorded.metadata.namespace}/` : ""}${o.recorded.metadata.name}`;

/** Whether a drifted object is put back: objects holding data (claims) only when named. */
function correctable(o: ObjectComparison, claims: readonly string[]): boolean {
    if (o.drift?.state === "changed") return true;
    if (o.drift?.state !== "missing") return false;
    return o.recorded.kind !== "PersistentVolumeClaim" || claims.includes(o.recorded.metadata.name);
}

function left(o: ObjectComparison): string {
    if (o.drift?.state === "missing")
        return `${nameOf(o)}: missing; a claim holds data, so it is re-created only when releases.<name>.driftCorrectClaims names it`;
    return `${nameOf(o)}: not compared (${o.drift?.detail ?? ""})`;
}

/**
 * `releases.<name>.drift: correct`: after the release, its objects are held to the revision Helm
 * recorded. Its diff compares them (so a preview shows the update when someone changed one); an
 * update patches each drifted field back as the release's own field manager (a merge patch of
 * only those fields) and re-creates missing objects, never a claim unless named, then compares
 * again. A run stopped half-way is finished by the next one: each starts from what is live.
 */
export const DriftCorrectionProvider = defineProvider<DriftCorrectionInputs, DriftCorrectionOutputs>({
    // The messages name the release they are about: "api: still differs ...".
    describe: (inputs) => inputs.release,
    changes: async (_olds, news, ctx) => {
        try {
            const found = (await compare(news, ctx)).filter((o) => correctable(o, news.claims));
            if (found.length > 0) ctx.say(`${news.release}: drift to correct: ${found.map(nameOf).join(", ")}`);
            return found.length > 0;
        } catch (err) {
            ctx.say(`${news.release}: could not compare its objects (${messageOf(err)})`);
            return true;
        }
    },
    id: (inputs) => `${inputs.namespace}/${inputs.release}`,
    create: correct,
    importRefused: "importing a drift correction is not supported; declare it with releases.<name>.drift: correct",
    read: async (_id, props, ctx) => ({ ...props, drifted: (await compare(props, ctx)).map(nameOf) }),
});

/** The drifted objects of the release's newest deployed revision. */
async function compare(inputs: DriftCorrectionInputs, ctx: ProviderContext, kube?: Kube): Promise<ObjectComparison[]> {
    const k = kube ?? (await ctx.kube(inputs.reach));
    const deployed = (await releaseHistory(k, inputs.namespace, inputs.release)).filter((r) => r.status === "deployed").pop();
    if (!deployed)
        throw new Error(
            `release ${inputs.namespace}/${inputs.release} has no deployed revision (helm -n ${inputs.namespace} history ${inputs.release})`,
        );
    const rules = [...BUILT_IN_IGNORES, ...userRules(inputs.ignore)];
    const compared = await compareRelease(k, discovery(k), { namespace: inputs.namespace, manifest: deployed.manifest }, rules);
    return compared.objects.filter((o) => o.drift);
}

async function correct(inputs: DriftCorrectionInputs, ctx: ProviderContext): Promise<DriftCorrectionOutputs> {
    const kube = await ctx.kube(inputs.reach);
    const found = await compare(inputs, ctx, kube);
    const corrected: string[] = [];
    const todo = found.filter((o) => correctable(o, inputs.claims));
    for (const o of todo) {
        const manager = `fieldManager=${HELM_FIELD_MANAGER}`;
        const res =
            o.drift?.state === "missing"
                ? await kube.request(
                      "POST",
                      `${o.apiPath!.slice(0, o.apiPath!.lastIndexOf("/"))}?${manager}`,
                      recreated(o.recorded, { name: inputs.release, namespace: inputs.namespace }),
                  )
                : await kube.request(
                      "PATCH",
                      `${o.apiPath}?${manager}`,
                      correctionPatch(o.applied, o.paths),
                      "application/merge-patch+json",
                  );
        // 409 on a create: it came back meanwhile; the comparison below looks at it.
        if (res.status >= 300 && !(o.drift?.state === "missing" && res.status === 409)) {
            const remaining = todo.slice(todo.indexOf(o)).map(nameOf);
            throw new Error(
                `${inputs.release}: putting back ${nameOf(o)} answered HTTP ${res.status}: ${excerpt(res.text, 200)}; ` +
                    `put back: ${corrected.length ? corrected.join("; ") : "nothing"}; left: ${remaining.join(", ")}; pulumi up again finishes it`,
            );
        }
        const what = o.drift?.state === "missing" ? "re-created" : o.drift!.fields.map((f) => f.path).join(", ");
        corrected.push(`${nameOf(o)}: ${what}`);
        ctx.say(`${inputs.release}: put back ${nameOf(o)}: ${what}`);
    }
    const after = await compare(inputs, ctx, kube);
    const still = after.filter((o) => correctable(o, inputs.claims));
    if (still.length > 0) {
        throw new Error(
            `${inputs.release}: still differs from revision ${inputs.revision} after the correction: ${still.map(nameOf).join(", ")} ` +
                `(a controller may be changing it back: npm run status -- --drift names the manager)`,
        );
    }
    const uncompared = after.filter((o) => o.drift?.state === "unknown");
    if (uncompared.length > 0) {
        throw new Error(
            `${inputs.release}: could not compare ${uncompared.map(left).join("; ")}; ` +
                `put back: ${corrected.length ? corrected.join("; ") : "nothing"} (the kubeconfig needs get and patch on the release's objects)`,
        );
    }
    const kept = after.map(left);
    for (const l of kept) ctx.say(`${inputs.release}: left ${l}`);
    return { ...inputs, corrected, drifted: kept };
}

export type DriftCorrectionArgs = { [K in keyof DriftCorrectionInputs]: pulumi.Input<DriftCorrectionInputs[K]> };
