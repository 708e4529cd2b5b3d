import { HELM_FIELD_MANAGER } from "../contracts/helm";
import type { CheckResult } from "../health/check-result";
import type { ObjectDrift, ReleaseObjects } from "./release-objects";

/** A release whose objects could not be compared at all (its record unreadable, the API server refusing). */
export interface UncomparedRelease {
    readonly release: string;
    readonly namespace: string;
    readonly error: string;
}

const objectName = (o: ObjectDrift) => `${o.kind} ${o.namespace ? `${o.namespace}/` : ""}${o.name}`;

function summary(o: ObjectDrift): string {
    if (o.state === "missing") return `${objectName(o)} missing`;
    if (o.state === "unknown") return `${objectName(o)} not compared (${o.detail ?? "no answer"})`;
    return `${objectName(o)}: ${o.fields.length} field${o.fields.length === 1 ? "" : "s"}`;
}

/** How to put a release's objects back as Helm recorded them, and how to look closer. */
export function driftFix(r: { readonly release: string; readonly namespace: string }, stack: string): string {
    return (
        `npm run status -- --stack ${stack} --drift names each field and who changed it; put them back with ` +
        `releases.${r.release}.drift: correct and pulumi up (a control-plane release), or by hand: ` +
        `helm -n ${r.namespace} get manifest ${r.release} | kubectl apply --server-side --force-conflicts --field-manager=${HELM_FIELD_MANAGER} -f - ` +
        `(or ignore a field that changes by design with releases.${r.release}.driftIgnore)`
    );
}

/** One release's line of `status --drift`. */
export function releaseObjectsCheck(r: ReleaseObjects, stack: string): CheckResult {
    const name = `objects ${r.release}`;
    const ignored = r.ignored ? `; ${r.ignored} difference${r.ignored === 1 ? "" : "s"} ignored by rule` : "";
    if (r.drifted.length === 0) {
        return {
            name,
            ok: true,
            detail: `${r.namespace}: ${r.objects} objects as revision ${r.revision} recorded them${ignored}`,
            fix: "",
        };
    }
    const onlyUnknown = r.drifted.every((o) => o.state === "unknown");
    return {
        name,
        ok: false,
        ...(onlyUnknown ? { inconclusive: true } : {}),
        detail: `${r.namespace}, revision ${r.revision}: ${r.drifted.map(summary).join("; ")}${ignored}`,
        fix: onlyUnknown
            ? "check the kubeconfig's right to patch these objects (the comparison is a server-side dry-run)"
            : driftFix(r, stack),
    };
}

/** `status --drift`'s line for a release whose objects could not be compared at all: inconclusive. */
export function uncomparedCheck(u: UncomparedRelease): CheckResult {
    return {
        name: `objects ${u.release}`,
        ok: false,
        inconclusive: true,
        detail: `${u.namespace}: not compared: ${u.error}`,
        fix: `helm -n ${u.namespace} get manifest ${u.release}`,
    };
}

/** The one line of the plain status: every release's objects together. */
export function objectsSummaryCheck(
    reports: readonly ReleaseObjects[],
    uncompared: readonly UncomparedRelease[],
    stack: string,
): CheckResult {
    const name = "release objects";
    const drifted = reports.filter((r) => r.drifted.some((o) => o.state !== "unknown"));
    const unknown = [
        ...reports.filter((r) => r.drifted.length > 0 && r.drifted.every((o) => o.state === "unknown")).map((r) => r.release),
        ...uncompared.map((u) => u.release),
    ];
    const total = reports.reduce((n, r) => n + r.objects, 0);
    const notCompared = unknown.length ? `; not compared: ${unknown.join(", ")}` : "";
    if (drifted.length > 0) {
        return {
            name,
            ok: false,
            detail:
                `${drifted.length} of ${reports.length + uncompared.length} releases differ from what Helm recorded: ` +
                drifted
                    .map(
                        (r) =>
                            `${r.release} (${r.drifted
                                .filter((o) => o.state !== "unknown")
                                .map(summary)
                                .join("; ")})`,
                    )
                    .join(", ") +
                notCompared,
            fix: `npm run status -- --stack ${stack} --drift names each field and who changed it`,
        };
    }
    if (unknown.length > 0) {
        return {
            name,
            ok: false,
            inconclusive: true,
            detail: `${total} objects of ${reports.length} releases as Helm recorded them${notCompared}`,
            fix: `npm run status -- --stack ${stack} --drift says why each was not compared`,
        };
    }
    return { name, ok: true, detail: `${total} objects of ${reports.length} releases as Helm recorded them`, fix: "" };
}
