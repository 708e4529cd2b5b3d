/**
 * The checks that follow each stage's update, built from the program's own checks
 * (lib/health/) and specs (the ones `npm run status` runs): releases deployed at the
 * stage's versions, workloads ready, migration Jobs succeeded, routes Accepted, NVCA healthy.
 */
import { health, jobOutcome, routes, workloads, type CheckResult } from "../../lib/health/checks";
import { installedReleases, releaseDrift, type DesiredRelease } from "../../lib/health/helm-releases";
import { listItems, type Kube } from "../../lib/kubernetes/client";
import { catalogEntry, RELEASE_NAMES, type Phase } from "../../components/catalog/control-plane";
import type { StatusTarget } from "../status/targets";
import { readReceipt } from "../../components/bundle/installed";
import { RECEIPT } from "../../components/bundle/receipt";

/** A cluster the upgrade reaches: what `npm run status` knows of it, and a client. */
export interface Cluster {
    readonly target: StatusTarget;
    readonly kube: Kube;
}

export interface Clusters {
    readonly control: Cluster;
    readonly planes: readonly (Cluster & { readonly name: string })[];
}

const prefixed = (cluster: string, results: CheckResult[]) => results.map((r) => ({ ...r, name: `${cluster}: ${r.name}` }));

/** Every Helm release in the stack's namespaces is `deployed`: an upgrade never starts over a failed or pending one. */
export async function releasesDeployed(cluster: Cluster): Promise<CheckResult> {
    const namespaces = [...new Set([...cluster.target.releases.map((r) => r.namespace), ...cluster.target.extrasIn])];
    const found = await installedReleases(cluster.kube, namespaces);
    const bad = found.filter((r) => r.status !== "deployed");
    const name = `${cluster.target.cluster}: releases-deployed`;
    if (bad.length === 0) return { name, ok: true, detail: `${found.length} Helm releases deployed`, fix: "" };
    return {
        name,
        ok: false,
        detail: `not deployed: ${bad.map((r) => `${r.namespace}/${r.name} (revision ${r.revision} ${r.status})`).join(", ")}`,
        fix: `helm -n ${bad[0].namespace} history ${bad[0].name}: roll back or uninstall a pending revision, repair a failed one (docs/operations.md, A failed first install), then run the upgrade again`,
    };
}

/** The given releases are installed at the versions the stack now wants, and deployed. */
export async function releasesAt(cluster: Cluster, desired: readonly DesiredRelease[]): Promise<CheckResult[]> {
    if (desired.length === 0) return [];
    const installed = await installedReleases(cluster.kube, [...new Set(desired.map((d) => d.namespace))]);
    return prefixed(cluster.target.cluster, releaseDrift(desired, installed, []));
}

/** Every Job in the namespaces succeeded (the charts' migration and initialisation hooks); a running one is waited for. */
export async function jobsSucceeded(cluster: Cluster, namespaces: readonly string[]): Promise<CheckResult> {
    const name = `${cluster.target.cluster}: jobs`;
    const failing: string[] = [];
    const running: string[] = [];
    let count = 0;
    for (const ns of namespaces) {
        for (const job of await listItems(cluster.kube, `/apis/batch/v1/namespaces/${ns}/jobs`)) {
            count++;
            const outcome = jobOutcome(job);
            if (outcome === "running") running.push(`${ns}/${job.metadata?.name}`);
            else if (outcome !== "succeeded") failing.push(`${ns}/${job.metadata?.name}${outcome.failed ? ` (${outcome.failed})` : ""}`);
        }
    }
    if (failing.length > 0) {
        const [ns, job] = failing[0].split(" ")[0].split("/");
        return {
            name,
            ok: false,
            detail: `failed: ${failing.join(", ")}`,
            fix: `kubectl -n ${ns} logs job/${job}; fix the cause, then run the upgrade again`,
        };
    }
    if (running.length > 0) {
        const [ns, job] = running[0].split("/");
        return {
            name,
            ok: false,
            detail: `not finished: ${running.join(", ")}`,
            fix: `kubectl -n ${ns} describe job ${job} (and its pods' logs)`,
        };
    }
    return { name, ok: true, detail: `${count} Job${count === 1 ? "" : "s"} succeeded in ${namespaces.join(", ")}`, fix: "" };
}

/** The control plane's desired releases of these helmfile.d files. */
export function releasesOfPhases(control: Cluster, phases: readonly Phase[]): DesiredRelease[] {
    return control.target.releases.filter((r) => RELEASE_NAMES.includes(r.name) && phases.includes(catalogEntry(r.name).phase));
}

/** The namespaces of those releases. */
export function namespacesOf(desired: readonly DesiredRelease[]): string[] {
    return [...new Set(desired.map((d) => d.namespace))].filter((ns) => ns);
}

/** Workloads ready and releases at their versions in the namespaces of these helmfile.d files. */
export async function phaseChecks(
    control: Cluster,
    phases: readonly Phase[],
    extra: { jobs?: boolean; routes?: boolean } = {},
): Promise<CheckResult[]> {
    const desired = releasesOfPhases(control, phases);
    const namespaces = namespacesOf(desired);
    const cluster = control.target.cluster;
    const results = [...(await releasesAt(control, desired))];
    if (namespaces.length > 0) results.push(...prefixed(cluster, [await workloads(control.kube, namespaces)]));
    if (extra.jobs && namespaces.length > 0) results.push(await jobsSucceeded(control, namespaces));
    const routeNamespaces = control.target.health?.routes?.namespaces;
    if (extra.routes && routeNamespaces) results.push(...prefixed(cluster, [await routes(control.kube, routeNamespaces)]));
    return results;
}

/** Each GPU cluster: its releases at their versions, and its health gate (NVCFBackend healthy, operator and agent pods Ready). */
export async function computePlaneChecks(planes: Clusters["planes"]): Promise<CheckResult[]> {
    const results: CheckResult[] = [];
    for (const plane of planes) {
        results.push(...(await releasesAt(plane, plane.target.releases)));
        if (plane.target.health) results.push(...prefixed(plane.target.cluster, await health(plane.kube, plane.target.health)));
    }
    return results;
}

/** The receipt against the target release and what Helm records on every cluster (the runbook's receipt check). */
export async function receiptMatches(clusters: Clusters, target: string): Promise<CheckResult[]> {
    const receipt = await readReceipt(clusters.control.kube);
    const name = "receipt";
    const inspect = `kubectl -n ${RECEIPT.namespace} get configmap ${RECEIPT.name} -o yaml`;
    if (!receipt) return [{ name, ok: false, detail: `no receipt ${RECEIPT.namespace}/${RECEIPT.name} this program wrote`, fix: inspect }];
    const problems: string[] = [];
    if (receipt.bundleRelease !== target) problems.push(`it names bundle release ${receipt.bundleRelease}, not ${target}`);
    const compare = async (cluster: Cluster, versions: Readonly<Record<string, string>>, where: string) => {
        const helm = await installedReleases(cluster.kube, [...new Set(cluster.target.releases.map((r) => r.namespace))]);
        for (const want of cluster.target.releases) {
            if (!(want.name in versions)) continue;
            const got = helm.find((r) => r.name === want.name && r.namespace === want.namespace);
            if (!got || got.chartVersion.replace(/^v/, "") !== versions[want.name].replace(/^v/, "")) {
                problems.push(
                    `${where} ${want.name}: the receipt says ${versions[want.name]}, Helm ${got?.chartVersion || "has no release"}`,
                );
            }
        }
    };
    await compare(clusters.control, receipt.controlPlane, "control plane");
    for (const plane of clusters.planes) await compare(plane, receipt.computePlanes[plane.name] ?? {}, `compute plane ${plane.name}`);
    return [
        problems.length === 0
            ? {
                  name,
                  ok: true,
                  detail: `the receipt names bundle release ${receipt.bundleRelease} and every release's chart version as Helm records it`,
                  fix: "",
              }
            : {
                  name,
                  ok: false,
                  detail: problems.join("; "),
                  fix: `${inspect}; never patch it by hand: rerun the upgrade, whose receipt stage rewrites it`,
              },
    ];
}
