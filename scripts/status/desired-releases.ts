import type { ComputePlaneConfig } from "../../config/model/compute-plane-schema";
import type { Settings } from "../../config/settings";
import { enabledAddons } from "../../components/catalog/compute-plane-addons";
import { NVCA_OPERATOR, SMB_CSI_DRIVER } from "../../components/catalog/compute-plane";
import { ownedNamespaces } from "../../components/control-plane/control-plane";
import { enabledReleases } from "../../components/control-plane/plan";
import { ENVOY_GATEWAY, KYVERNO, type KyvernoInstall } from "../../components/catalog/prerequisites";
import { versionOf } from "../../components/release/declare";
import type { ReleaseEntry } from "../../components/release/entry";
import type { DesiredRelease } from "../../lib/health/helm-releases";
import { selectedBundleRelease, type BundleRelease } from "../../components/bundle/bundle-releases";
import { computePlaneVersions, controlPlaneChartVersions } from "../../components/bundle/versions";

/** An entry's release as the settings `p` install it, at `version`. */
function desired<P>(entry: ReleaseEntry<P, never>, p: P, version: string): DesiredRelease {
    return { name: entry.name, namespace: entry.namespace(p), chart: entry.chart, version };
}

/** Kyverno, when the stack installs it (as components/resolve/registry.ts decides). */
function kyverno(settings: Settings): DesiredRelease[] {
    const k = settings.registry.kyverno;
    if (settings.registry.pullSecret.mode !== "kyverno" || !k.install || !k.version) return [];
    const install: KyvernoInstall = { ...k, version: k.version };
    return [desired(KYVERNO, install, versionOf(KYVERNO, install, {}))];
}

/**
 * The Helm releases `pulumi up` installs on the control plane's cluster, with the versions it
 * pins: the catalog's enabled releases at the bundle release's versions (a
 * `releases.<name>.version` override wins), Kyverno and Envoy Gateway when the stack installs them.
 */
export function controlPlaneReleases(
    settings: Settings,
    bundle: BundleRelease = selectedBundleRelease(settings.bundle.release),
): DesiredRelease[] {
    const cp = settings.controlPlane;
    const versions = controlPlaneChartVersions(bundle, settings.releases, settings.controlPlane);
    const install = cp.ingress.gatewayApi.install;
    return [
        ...kyverno(settings),
        ...(ENVOY_GATEWAY.enabled(cp) && install.envoyGateway.version
            ? [desired(ENVOY_GATEWAY, cp, versionOf(ENVOY_GATEWAY, cp, {}))]
            : []),
        ...enabledReleases(cp).map((e) => desired(e, cp, versions[e.name])),
    ];
}

/**
 * The Helm releases `pulumi up` installs on one GPU cluster: the SMB CSI driver, the enabled
 * add-ons, the NVCA operator, and Kyverno unless the plane shares the control plane's cluster
 * (whose Kyverno serves it).
 */
export function computePlaneReleases(
    settings: Settings,
    plane: ComputePlaneConfig,
    bundle: BundleRelease = selectedBundleRelease(settings.bundle.release),
): DesiredRelease[] {
    const versions = computePlaneVersions(bundle, plane);
    return [
        ...(plane.cluster.sameAsControlPlane ? [] : kyverno(settings)),
        desired(SMB_CSI_DRIVER, plane, versionOf(SMB_CSI_DRIVER, plane, {})),
        ...enabledAddons(plane).map((a) => desired(a, plane, versions.charts[a.name])),
        desired(NVCA_OPERATOR, plane, versions.charts[NVCA_OPERATOR.name]),
    ];
}

/**
 * Where, on the control plane's cluster, a release the stack does not declare counts as drift:
 * the namespaces the stack owns (not the Envoy Gateway controller's it did not install, nor an
 * external cert-manager's, whose releases are the user's) and Kyverno's when it installs it.
 */
export function controlPlaneExtrasNamespaces(settings: Settings): string[] {
    return [...new Set([...ownedNamespaces(settings.controlPlane).map((n) => n.name), ...kyverno(settings).map((k) => k.namespace)])];
}

/**
 * Where, on a GPU cluster, a release the stack does not declare counts as drift: the desired
 * releases' namespaces, but not kube-system, where the SMB CSI driver lives among the cluster's own.
 */
export function computePlaneExtrasNamespaces(desired: readonly DesiredRelease[]): string[] {
    return [...new Set(desired.map((d) => d.namespace))].filter((ns) => ns !== "kube-system");
}
