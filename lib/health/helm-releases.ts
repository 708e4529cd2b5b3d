import * as zlib from "node:zlib";
import { HELM_SECRET } from "../contracts/helm";
import type { CheckResult } from "./check-result";
import { listItems, type Kube } from "../kubernetes/client";

/** A Helm release the stack declares: where it lives and the chart version it pins. */
export interface DesiredRelease {
    readonly name: string;
    readonly namespace: string;
    readonly chart: string;
    readonly version: string;
}

/** A Helm release as the cluster records it: its newest revision's Secret, decoded. */
export interface InstalledRelease {
    readonly name: string;
    readonly namespace: string;
    readonly revision: number;
    /** The chart name and version of that revision; "" when the record could not be decoded. */
    readonly chart: string;
    readonly chartVersion: string;
    /** deployed, failed, pending-install, pending-upgrade, ... (from the record, else the Secret's label). */
    readonly status: string;
    /** What Helm rendered for that revision ("" when the record could not be decoded). */
    readonly manifest: string;
    /** The chart's hooks, as Helm recorded them for that revision (none when the record could not be decoded). */
    readonly hooks: readonly HelmHook[];
    /** When the API server stored the revision's record (Helm writes it as the operation begins), by the cluster's clock. */
    readonly recordedAt?: string;
}

/** A hook of a release's record (`pkg/release/hook.go`): the object, and when and how Helm runs it. */
export interface HelmHook {
    readonly name: string;
    readonly kind: string;
    /** The template it came from (`<chart>/templates/tests/test-connection.yaml`). */
    readonly path: string;
    readonly manifest: string;
    /** `test`, `pre-install`, ... */
    readonly events: readonly string[];
    readonly weight: number;
    /** `before-hook-creation`, `hook-succeeded`, `hook-failed`; Helm applies `before-hook-creation` when there is none. */
    readonly deletePolicies: readonly string[];
}

/**
 * The releases in the namespaces, each at its newest revision. Helm keeps one Secret per
 * revision; the `version` label is the revision number, so the largest is the current one.
 */
export async function installedReleases(kube: Kube, namespaces: readonly string[]): Promise<InstalledRelease[]> {
    const out: InstalledRelease[] = [];
    for (const ns of namespaces) {
        const secrets = await listItems(kube, `/api/v1/namespaces/${ns}/secrets?labelSelector=${encodeURIComponent(HELM_SECRET.selector)}`);
        const newest = new Map<string, { revision: number; secret: HelmSecret }>();
        for (const s of secrets as HelmSecret[]) {
            if (s.type !== HELM_SECRET.type) continue;
            const name = s.metadata?.labels?.name;
            const revision = Number(s.metadata?.labels?.version ?? 0);
            if (!name) continue;
            const seen = newest.get(name);
            if (!seen || revision > seen.revision) newest.set(name, { revision, secret: s });
        }
        for (const [name, { revision, secret }] of newest) out.push(decodeRelease(name, ns, revision, secret));
    }
    return out;
}

interface HelmSecret {
    readonly type?: string;
    readonly metadata?: { readonly labels?: Record<string, string>; readonly creationTimestamp?: string };
    readonly data?: { readonly release?: string };
}

/** The part of Helm's release record the tools read. */
interface HelmRecord {
    readonly info?: { readonly status?: string; readonly description?: string };
    readonly chart?: { readonly metadata?: { readonly name?: string; readonly version?: string } };
    readonly manifest?: string;
    readonly hooks?: readonly {
        readonly name?: string;
        readonly kind?: string;
        readonly path?: string;
        readonly manifest?: string;
        readonly events?: readonly string[];
        readonly weight?: number;
        readonly delete_policies?: readonly string[];
    }[];
}

/** The record is base64(gzip(JSON)), and the API serves a Secret's data base64-encoded once more; undefined when it is not that. */
function decodeRecord(secret: HelmSecret): HelmRecord | undefined {
    if (!secret.data?.release) return undefined;
    try {
        const raw = Buffer.from(Buffer.from(secret.data.release, "base64").toString("utf8"), "base64");
        return JSON.parse(zlib.gunzipSync(raw).toString("utf8")) as HelmRecord;
    } catch {
        return undefined;
    }
}

function decodeRelease(
    name: string,
    namespace: string,
    revision: number,
    secret: HelmSecret,
    rel: HelmRecord | undefined = decodeRecord(secret),
): InstalledRelease {
    const fallback = {
        name,
        namespace,
        revision,
        chart: "",
        chartVersion: "",
        status: secret.metadata?.labels?.status ?? "unknown",
        manifest: "",
        hooks: [],
        ...(secret.metadata?.creationTimestamp ? { recordedAt: secret.metadata.creationTimestamp } : {}),
    };
    // A record this tool cannot read still tells, by its labels, that the release exists and its status.
    if (!rel) return fallback;
    return {
        ...fallback,
        chart: rel.chart?.metadata?.name ?? "",
        chartVersion: rel.chart?.metadata?.version ?? "",
        status: rel.info?.status ?? fallback.status,
        manifest: rel.manifest ?? "",
        hooks: (rel.hooks ?? []).map((h) => ({
            name: h.name ?? "",
            kind: h.kind ?? "",
            path: h.path ?? "",
            manifest: h.manifest ?? "",
            events: h.events ?? [],
            weight: h.weight ?? 0,
            deletePolicies: h.delete_policies ?? [],
        })),
    };
}

/** One revision of a release, with when and why Helm wrote it. */
export interface ReleaseRevision extends InstalledRelease {
    /** Helm's log entry for the revision (`Install complete`, `Rollback to 2`, ...). */
    readonly description?: string;
}

/** Every revision Helm keeps of one release, oldest first; empty when it is not installed. */
export async function releaseHistory(kube: Kube, namespace: string, name: string): Promise<ReleaseRevision[]> {
    const selector = `${HELM_SECRET.selector},name=${name}`;
    const secrets = (await listItems(
        kube,
        `/api/v1/namespaces/${namespace}/secrets?labelSelector=${encodeURIComponent(selector)}`,
    )) as HelmSecret[];
    return secrets
        .filter((s) => s.type === HELM_SECRET.type && s.metadata?.labels?.name === name)
        .map((s) => {
            const revision = Number(s.metadata?.labels?.version ?? 0);
            const record = decodeRecord(s);
            const description = record?.info?.description;
            return {
                ...decodeRelease(name, namespace, revision, s, record),
                ...(description ? { description } : {}),
            };
        })
        .sort((a, b) => a.revision - b.revision);
}

/** A version pin Helm resolves itself (`^1.2`, `~1.2.0`, `>=1 <2`, `1.x`): no exact version to compare with. */
function isConstraint(version: string): boolean {
    return /[\^~*<>=|\s]|(^|\.)[xX](\.|$)/.test(version);
}

/** Chart versions compare without a leading "v": some charts are tagged v1.2.3 and published as 1.2.3. */
const bare = (v: string) => v.replace(/^v/, "");

/**
 * The cluster's releases against the stack's: one `release <name>` check per desired release
 * (missing, in another namespace, another chart version, or not deployed fails), and one per
 * release in the scanned namespaces that the stack does not declare (left behind by a setting
 * turned off, or installed by hand). Pure: the tests give it records.
 */
export function releaseDrift(
    desired: readonly DesiredRelease[],
    installed: readonly InstalledRelease[],
    scanned: readonly string[],
): CheckResult[] {
    const results: CheckResult[] = [];
    for (const want of desired) {
        const name = `release ${want.name}`;
        const here = installed.find((r) => r.name === want.name && r.namespace === want.namespace);
        const elsewhere = installed.filter((r) => r.name === want.name && r.namespace !== want.namespace);
        if (!here) {
            results.push({
                name,
                ok: false,
                detail: elsewhere.length
                    ? `installed in ${elsewhere.map((r) => r.namespace).join(", ")}, not in ${want.namespace}`
                    : `not installed in ${want.namespace} (the stack wants ${want.chart} ${want.version})`,
                fix: `run pulumi up (helm -n ${want.namespace} history ${want.name}; pulumi refresh first if it was removed by hand)`,
            });
            continue;
        }
        const problems: string[] = [];
        if (here.status !== "deployed") problems.push(`its revision ${here.revision} is ${here.status}`);
        if (!here.chartVersion) problems.push("its record could not be decoded");
        else if (!isConstraint(want.version) && bare(here.chartVersion) !== bare(want.version)) {
            problems.push(`chart version ${here.chartVersion}, the stack wants ${want.version}`);
        }
        const found = `${here.chart || want.chart} ${here.chartVersion || "?"}, revision ${here.revision}, ${here.status}`;
        results.push(
            problems.length === 0
                ? { name, ok: true, detail: `${want.namespace}: ${found}`, fix: "" }
                : {
                      name,
                      ok: false,
                      detail: `${want.namespace}: ${problems.join("; ")}`,
                      fix: here.status.startsWith("pending")
                          ? `an operation was interrupted: helm -n ${want.namespace} history ${want.name}, roll back or uninstall the pending revision, then pulumi up`
                          : `pulumi up brings it to the stack's version (helm -n ${want.namespace} history ${want.name} shows what happened)`,
                  },
        );
    }
    const declared = new Set(desired.map((d) => `${d.namespace}/${d.name}`));
    const wantedNames = new Set(desired.map((d) => d.name));
    for (const r of installed) {
        // One installed under a declared name elsewhere is reported above, with its declared namespace.
        if (!scanned.includes(r.namespace) || declared.has(`${r.namespace}/${r.name}`) || wantedNames.has(r.name)) continue;
        results.push({
            name: `release ${r.name}`,
            ok: false,
            detail: `${r.namespace}: ${r.chart || "?"} ${r.chartVersion || "?"} is installed, but the stack does not declare it`,
            fix: `a setting turned off or an install by hand: helm -n ${r.namespace} uninstall ${r.name} if it is not needed`,
        });
    }
    return results;
}
