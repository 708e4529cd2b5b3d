/**
 * What `npm run status` checks on each cluster of a stack, and how it reaches it: the program's
 * own specs (components/health/specs.ts) and desired releases, with the cluster reached as
 * components/resolve/clusters.ts reaches it, except that a kubeconfig held in a stack secret
 * cannot be (status never decrypts one) and an EKS cluster's is built by `pulumi up`: those
 * clusters are "not checked" unless a kubeconfig file is given on the command line.
 */
import type { HealthSpec, PreflightSpec } from "../../components/health/checks";
import {
    computePlaneExtrasNamespaces,
    computePlaneReleases,
    controlPlaneExtrasNamespaces,
    controlPlaneReleases,
} from "../../components/health/desired-releases";
import type { DesiredRelease } from "../../components/health/helm-releases";
import { computePlaneHealth, computePlanePreflight, controlPlaneHealth, controlPlanePreflight } from "../../components/health/specs";
import { enabledAddons } from "../../components/compute-plane/addons";
import { NVCA_OPERATOR_NAMESPACE } from "../../components/compute-plane/catalog";
import { OPENBAO } from "../../components/control-plane/catalog";
import { enabledReleases } from "../../components/control-plane/control-plane";
import type { KubeAccess } from "../../components/providers/kube-access";
import type { SecretKey } from "../../config/keys";
import type { Settings } from "../../config/settings";
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
}

/** Kubeconfig files from the command line: `--kubeconfig` (control plane) and `--kubeconfig-for <plane>=<file>`. */
export interface GivenKubeconfigs {
    readonly controlPlane?: { readonly file: string; readonly text: string };
    readonly context?: string;
    readonly planes: ReadonlyMap<string, { readonly file: string; readonly text: string }>;
}

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
    };
    const planes = settings.computePlanes.map((plane): StatusTarget => {
        const file = given.planes.get(plane.clusterName);
        const c = plane.cluster;
        const access: Pick<StatusTarget, "access" | "skipped"> = file
            ? { access: { kubeconfig: file.text, source: file.file, ...(c.context ? { context: c.context } : {}) } }
            : c.sameAsControlPlane
              ? controlAccess
              : c.eks
                ? {
                      skipped: `an EKS cluster (eks.name ${c.eks.name}): pulumi up builds its kubeconfig; pass --kubeconfig-for ${plane.clusterName}=<file> (aws eks update-kubeconfig --name ${c.eks.name} --region ${c.eks.region} writes one)`,
                  }
                : secretKeys.includes("computePlaneKubeconfigs")
                  ? {
                        skipped: `its kubeconfig may be in the stack secret computePlaneKubeconfigs, which status never decrypts; pass --kubeconfig-for ${plane.clusterName}=<file>`,
                    }
                  : { access: { ...(c.context ? { context: c.context } : {}) } };
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

function controlPlaneAccess(
    settings: Settings,
    secretKeys: readonly SecretKey[],
    given: GivenKubeconfigs,
): Pick<StatusTarget, "access" | "skipped"> {
    const context = given.context ?? settings.cluster.context;
    if (given.controlPlane) {
        return { access: { kubeconfig: given.controlPlane.text, source: given.controlPlane.file, ...(context ? { context } : {}) } };
    }
    const eks = settings.cluster.eks;
    if (eks) {
        return {
            skipped: `an EKS cluster (cluster.eks.name ${eks.name}): pulumi up builds its kubeconfig; pass --kubeconfig <file> (aws eks update-kubeconfig --name ${eks.name} --region ${eks.region} writes one)`,
        };
    }
    if (secretKeys.includes("kubeconfig")) {
        return { skipped: "its kubeconfig is the stack secret kubeconfig, which status never decrypts; pass --kubeconfig <file>" };
    }
    return { access: context ? { context } : {} };
}
