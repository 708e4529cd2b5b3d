/**
 * One round of `npm run status`: on each cluster, preflight, the health gate, the Helm releases
 * and their objects against the stack's, read-only (the objects are compared in a server-side
 * dry-run, which writes nothing); a cluster that does not answer stops there (every other check
 * would say the same).
 */
import { failed, health, preflight, type CheckResult } from "../../lib/health/checks";
import { installedReleases, releaseDrift, type InstalledRelease } from "../../lib/health/helm-releases";
import { objectsSummaryCheck, releaseObjectsCheck, uncomparedCheck, type UncomparedRelease } from "../../lib/drift/check";
import { releaseObjectDrift, type ReleaseObjects } from "../../lib/drift/release-objects";
import { BUILT_IN_IGNORES, userRules } from "../../lib/drift/rules";
import { discovery } from "../../lib/kubernetes/discovery";
import { bundleReleaseCheck } from "../../components/bundle/installed";
import { readRecord, SMOKE_RECORD } from "../../lib/smoke/record";
import { smokeStatus } from "../../lib/smoke/status";
import { httpKube, type Kube } from "../../lib/kubernetes/client";
import { apiServer, type KubeAccess } from "../../lib/cluster-access/access";
import type { StatusTarget } from "./targets";

/** checked: every check ran; skipped: the cluster was not reached on purpose (`reason`); unreachable: it did not answer. */
export type ClusterState = "checked" | "skipped" | "unreachable";

export interface ClusterReport {
    readonly cluster: string;
    readonly state: ClusterState;
    readonly reason?: string;
    readonly checks: readonly CheckResult[];
    /** With `--drift`: each release's objects that differ from what Helm recorded, field by field. */
    readonly objects?: readonly ReleaseObjects[];
}

/** `summary`: one line for every release's objects; `details`: a line per release and each changed field. */
export interface RoundOptions {
    readonly stack: string;
    readonly drift: "summary" | "details";
}

export interface StatusReport {
    readonly stack: string;
    /** ISO 8601, when the round started. */
    readonly time: string;
    readonly clusters: readonly ClusterReport[];
}

/** Turns a cluster's access into a client; the tests may pass their own. */
export type Connect = (access: KubeAccess) => Promise<Kube>;

/** A request may take 10 s and is tried twice: status answers in seconds, and a watch round stays short. */
export const connectWithKubeconfig: Connect = async (access) => httpKube(await apiServer(access), { timeoutMs: 10_000, retries: 1 });

const UNREACHABLE = /could not be reached|refused the credentials/;

export async function checkCluster(target: StatusTarget, connect: Connect, options: RoundOptions): Promise<ClusterReport> {
    const { cluster } = target;
    if (!target.access) return { cluster, state: "skipped", reason: `not checked: ${target.skipped ?? "no way to reach it"}`, checks: [] };
    let kube: Kube;
    try {
        kube = await connect(target.access);
    } catch (error) {
        return { cluster, state: "unreachable", reason: `its kubeconfig could not be used: ${(error as Error).message}`, checks: [] };
    }
    const results = await preflight(kube, target.preflight);
    const [first] = results;
    if (first && first.name === "kubernetes-version" && !first.ok && UNREACHABLE.test(first.detail)) {
        return { cluster, state: "unreachable", reason: first.detail, checks: results };
    }
    if (target.health) results.push(...(await health(kube, target.health)));
    if (target.bundleRelease) results.push(await guardedBundleCheck(kube, target.bundleRelease));
    const releases = await helmReleases(kube, target);
    results.push(...releases.checks);
    if (target.smoke && releases.installed) results.push(...(await smokeChecks(kube, target.smoke, releases.installed)));
    let objects: ReleaseObjects[] | undefined;
    if (releases.installed) {
        const compared = await objectDrift(kube, target, releases.installed);
        if (options.drift === "details") {
            objects = compared.reports;
            results.push(...compared.reports.map((r) => releaseObjectsCheck(r, options.stack)));
            results.push(...compared.uncompared.map(uncomparedCheck));
        } else if (compared.reports.length + compared.uncompared.length > 0) {
            results.push(objectsSummaryCheck(compared.reports, compared.uncompared, options.stack));
        }
    }
    // The health gate repeats a failed version check that preflight already reported.
    const seen = new Set<string>();
    const unique = results.filter((r) => {
        const key = `${r.name}\n${r.detail}`;
        if (seen.has(key)) return false;
        seen.add(key);
        return true;
    });
    return { cluster, state: "checked", checks: unique, ...(objects ? { objects } : {}) };
}

async function guardedBundleCheck(kube: Kube, selected: string): Promise<CheckResult> {
    try {
        return await bundleReleaseCheck(kube, selected);
    } catch (error) {
        return {
            name: "bundle-release",
            ok: false,
            detail: `the receipt could not be read: ${(error as Error).message}`,
            fix: "kubectl -n nvcf get configmap nvcf-upgrade-receipt -o yaml",
        };
    }
}

async function smokeChecks(
    kube: Kube,
    expect: NonNullable<StatusTarget["smoke"]>,
    installed: readonly InstalledRelease[],
): Promise<CheckResult[]> {
    try {
        return smokeStatus(await readRecord(kube), installed, expect);
    } catch (error) {
        return [
            {
                name: "smoke",
                ok: false,
                inconclusive: true,
                detail: `the last smoke run could not be read: ${(error as Error).message}`,
                fix: `kubectl -n ${SMOKE_RECORD.namespace} get configmap ${SMOKE_RECORD.name} -o yaml`,
            },
        ];
    }
}

async function helmReleases(kube: Kube, target: StatusTarget): Promise<{ checks: CheckResult[]; installed?: InstalledRelease[] }> {
    const namespaces = [...new Set([...target.releases.map((r) => r.namespace), ...target.extrasIn])];
    try {
        const installed = await installedReleases(kube, namespaces);
        return { checks: releaseDrift(target.releases, installed, target.extrasIn), installed };
    } catch (error) {
        const checks = [
            {
                name: "releases",
                ok: false,
                detail: `the Helm releases could not be read: ${(error as Error).message}`,
                fix: "check the kubeconfig's right to list Secrets (kubectl auth can-i list secrets -A)",
            },
        ];
        return { checks };
    }
}

/** The objects of each declared release whose newest revision is deployed (another status is reported above), against the live ones. */
async function objectDrift(
    kube: Kube,
    target: StatusTarget,
    installed: readonly InstalledRelease[],
): Promise<{ reports: ReleaseObjects[]; uncompared: UncomparedRelease[] }> {
    const kinds = discovery(kube);
    const reports: ReleaseObjects[] = [];
    const uncompared: UncomparedRelease[] = [];
    for (const want of target.releases) {
        const here = installed.find((r) => r.name === want.name && r.namespace === want.namespace);
        if (!here || here.status !== "deployed") continue;
        const where = { release: want.name, namespace: want.namespace };
        if (!here.chartVersion) {
            uncompared.push({ ...where, error: `the record of revision ${here.revision} could not be decoded` });
            continue;
        }
        try {
            const rules = [...BUILT_IN_IGNORES, ...userRules(target.driftIgnore?.[want.name])];
            reports.push(
                await releaseObjectDrift(
                    kube,
                    kinds,
                    { ...where, name: want.name, revision: here.revision, manifest: here.manifest },
                    rules,
                ),
            );
        } catch (error) {
            uncompared.push({ ...where, error: (error as Error).message });
        }
    }
    return { reports, uncompared };
}

export async function statusRound(targets: readonly StatusTarget[], connect: Connect, options: RoundOptions): Promise<StatusReport> {
    const time = new Date().toISOString();
    // The clusters are independent: one slow cluster should not hold up the others' answers.
    const clusters = await Promise.all(targets.map((t) => checkCluster(t, connect, options)));
    return { stack: options.stack, time, clusters };
}

/** 0 every check passed, 1 a check failed, 2 a cluster did not answer or none could be checked. */
export function exitCode(report: StatusReport): 0 | 1 | 2 {
    if (report.clusters.some((c) => c.state === "unreachable")) return 2;
    if (!report.clusters.some((c) => c.state === "checked")) return 2;
    return report.clusters.some((c) => c.checks.some(failed)) ? 1 : 0;
}
