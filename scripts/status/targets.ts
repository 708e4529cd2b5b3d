/**
 * What `npm run status` checks on each cluster of a stack, and how it reaches it: the program's
 * own specs (components/plane/health-specs.ts) and desired releases, with the cluster reached by the
 * route the program takes too (lib/cluster-access/route.ts), except that a kubeconfig held in a
 * stack secret cannot be (status never decrypts one) and an EKS cluster's is built by `pulumi up`:
 * those clusters are "not checked" unless a kubeconfig file is given on the command line.
 */
import type { GivenKubeconfigs } from "../lib/kubeconfig-options";
import type { UserDriftIgnore } from "../../lib/drift/rules";
import type { HealthSpec, PreflightSpec } from "../../lib/health/checks";
import { computePlaneExtrasNamespaces, computePlaneReleases, controlPlaneExtrasNamespaces, controlPlaneReleases } from "./desired-releases";
import type { DesiredRelease } from "../../lib/health/helm-releases";
import { computePlaneHealth, computePlanePreflight, controlPlaneHealth, controlPlanePreflight } from "../../components/plane/health-specs";
import { enabledAddons } from "../../components/catalog/compute-plane-addons";
import { NVCA_OPERATOR_NAMESPACE } from "../../components/catalog/compute-plane";
import { OPENBAO } from "../../components/catalog/control-plane";
import { enabledReleases } from "../../components/control-plane/plan";
import type { KubeAccess } from "../../lib/cluster-access/access";
import type { SecretKey } from "../../config/model/keys";
import type { Settings } from "../../config/settings";
import { clusterRoute, type ClusterRoute } from "../../lib/cluster-access/route";
import { selectedBundleRelease, type BundleRelease } from "../../components/bundle/bundle-releases";

/** One cluster to check: how to reach it (or why it is not checked) and what to check there. */
export interface StatusTarget {
    /** "control plane" or "compute plane <clusterName>", as preflight and the health gate name them. */
    readonly cluster: string;
    /** Unset when the cluster cannot be reached without a secret: `skipped` says why. */
    readonly access?: KubeAccess;
    readonly skipped?: string;
    /** Always at least the version check: it is the one that says whether the cluster answers. */
    readonly preflight: PreflightSpec;
    readonly health?: HealthSpec;
    readonly releases: readonly DesiredRelease[];
    /** The control plane's: the bundle release the stack selects, compared with the receipt. */
    readonly bundleRelease?: string;
    /** The namespaces where a release the stack does not declare is reported as drift. */
    readonly extrasIn: readonly string[];
    /** The stack file's fields to ignore when comparing a release's objects (`releases.<name>.driftIgnore`), by release. */
    readonly driftIgnore?: Readonly<Record<string, readonly UserDriftIgnore[]>>;
    /** The control plane's: which parts of the smoke check the stack runs (`checks.smoke`), whose last run status reports. */
    readonly smoke?: { readonly helmTests: boolean; readonly platform: boolean };
}

export type { GivenKubeconfigs } from "../lib/kubeconfig-options";

export function statusTargets(
    settings: Settings,
    secretKeys: readonly SecretKey[],
    given: GivenKubeconfigs,
    bundle: BundleRelease = selectedBundleRelease(settings.bundle.release),
): StatusTarget[] {
    const cp = settings.controlPlane;
    const { checks } = settings;
    const enabled = enabledReleases(cp);
    const openbaoEntry = enabled.find((e) => e.name === OPENBAO.release);
    const controlAccess = controlPlaneAccess(settings, secretKeys, given);
    const control: StatusTarget = {
        cluster: "control plane",
        ...controlAccess,
        preflight: controlPlanePreflight(cp, checks, enabled) ?? { kubernetesVersion: true },
        health: controlPlaneHealth(
            cp,
            checks,
            enabled,
            openbaoEntry
                ? { namespace: openbaoEntry.namespace(cp), pod: OPENBAO.pod, port: OPENBAO.port, access: settings.openbaoAccess }
                : undefined,
        ),
        releases: controlPlaneReleases(settings, bundle),
        bundleRelease: bundle.release,
        extrasIn: controlPlaneExtrasNamespaces(settings),
        driftIgnore: Object.fromEntries(Object.entries(settings.releases).map(([name, o]) => [name, o.driftIgnore ?? []])),
        smoke: { helmTests: checks.smoke.helmTests, platform: checks.smoke.platform },
    };
    const planes = settings.computePlanes.map((plane): StatusTarget => {
        const file = given.planes.get(plane.clusterName);
        const access = file
            ? { access: { kubeconfig: file.text, source: file.file, ...(plane.cluster.context ? { context: plane.cluster.context } : {}) } }
            : computePlaneAccess(plane.clusterName, clusterRoute(settings, { clusterName: plane.clusterName }), controlAccess, secretKeys);
        const releases = computePlaneReleases(settings, plane, bundle);
        return {
            cluster: `compute plane ${plane.clusterName}`,
            ...access,
            preflight: computePlanePreflight(checks) ?? { kubernetesVersion: true },
            // The agent's namespace, as components/compute-plane/compute-plane.ts names it.
            health: computePlaneHealth(checks, plane.clusterName, { namespace: NVCA_OPERATOR_NAMESPACE, agentNamespace: "nvca-system" }, [
                ...new Set(enabledAddons(plane).map((a) => a.namespace(plane))),
            ]),
            releases,
            extrasIn: computePlaneExtrasNamespaces(releases),
        };
    });
    return [control, ...planes];
}

/**
 * What status makes of the control plane's route. `secretKeys` are the secrets the caller could
 * not read: `upgrade` reads the kubeconfig secrets itself and passes their text as `given`, and a
 * `kubeconfig` secret it found empty leaves the default kubeconfig, as it does for the providers.
 */
function controlPlaneAccess(
    settings: Settings,
    secretKeys: readonly SecretKey[],
    given: GivenKubeconfigs,
): Pick<StatusTarget, "access" | "skipped"> {
    const route = clusterRoute(settings, "control-plane");
    const context = given.context ?? (route.kind === "eks" ? undefined : route.context);
    if (given.controlPlane) {
        return { access: { kubeconfig: given.controlPlane.text, source: given.controlPlane.file, ...(context ? { context } : {}) } };
    }
    if (route.kind === "eks") {
        const { name, region } = route.eks;
        return {
            skipped: `an EKS cluster (cluster.eks.name ${name}): pulumi up builds its kubeconfig; pass --kubeconfig <file> (aws eks update-kubeconfig --name ${name} --region ${region} writes one)`,
        };
    }
    if (route.kind === "stack-secret" && secretKeys.includes(route.key)) {
        return { skipped: "its kubeconfig is the stack secret kubeconfig, which status never decrypts; pass --kubeconfig <file>" };
    }
    return { access: context ? { context } : {} };
}

/** What status makes of a compute plane's route, when no kubeconfig file is given for it. */
function computePlaneAccess(
    clusterName: string,
    route: ClusterRoute,
    controlAccess: Pick<StatusTarget, "access" | "skipped">,
    secretKeys: readonly SecretKey[],
): Pick<StatusTarget, "access" | "skipped"> {
    if (route.sameAsControlPlane) return controlAccess;
    if (route.kind === "eks") {
        const { name, region } = route.eks;
        return {
            skipped: `an EKS cluster (eks.name ${name}): pulumi up builds its kubeconfig; pass --kubeconfig-for ${clusterName}=<file> (aws eks update-kubeconfig --name ${name} --region ${region} writes one)`,
        };
    }
    // The secret's entries are inside its ciphertext: the settings status reads assume one only for
    // a plane with no other way in, so a plane with a context may have one as well.
    if (secretKeys.includes("computePlaneKubeconfigs")) {
        return {
            skipped: `its kubeconfig may be in the stack secret computePlaneKubeconfigs, which status never decrypts; pass --kubeconfig-for ${clusterName}=<file>`,
        };
    }
    // Read by the caller (upgrade) and without this plane's entry: the default kubeconfig may be
    // another cluster, and the program itself would stop at the missing entry.
    if (route.kind === "stack-secret") {
        return {
            skipped: `the stack secret computePlaneKubeconfigs has no entry for ${clusterName}; pass --kubeconfig-for ${clusterName}=<file>`,
        };
    }
    return { access: route.context ? { context: route.context } : {} };
}
