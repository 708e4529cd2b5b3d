import type { ComputePlaneConfig } from "../../config/compute-plane-schema";
import type { Settings } from "../../config/settings";
import { enabledAddons } from "../compute-plane/addons";
import { NVCA_OPERATOR } from "../compute-plane/compute-plane";
import { enabledReleases, ownedNamespaces } from "../control-plane/control-plane";
import { ENVOY_GATEWAY, KYVERNO } from "../kubernetes/cluster-prerequisites";
import type { DesiredRelease } from "./helm-releases";
import { selectedBundleRelease, type BundleRelease } from "../bundle/bundle-releases";
import { computePlaneVersions, controlPlaneChartVersions } from "../bundle/versions";

/** The SMB CSI driver's release, as components/compute-plane/smb-csi-driver.ts installs it. */
export const SMB_CSI_DRIVER = { name: "csi-driver-smb", namespace: "kube-system", chart: "csi-driver-smb" } as const;

/** Kyverno, when the stack installs it (as components/resolve/registry.ts decides). */
function kyverno(settings: Settings): DesiredRelease[] {
    const k = settings.registry.kyverno;
    return settings.registry.pullSecret.mode === "kyverno" && k.install && k.version
        ? [{ name: KYVERNO.release, namespace: k.namespace, chart: KYVERNO.chart, version: k.version }]
        : [];
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
        ...(install.enabled && install.envoyGateway.version
            ? [
                  {
                      name: ENVOY_GATEWAY.release,
                      namespace: cp.ingress.gatewayApi.controllerNamespace,
                      chart: ENVOY_GATEWAY.chart,
                      version: install.envoyGateway.version,
                  },
              ]
            : []),
        ...enabledReleases(cp).map((e) => ({
            name: e.name,
            namespace: e.namespace(cp),
            chart: e.chart,
            version: versions[e.name],
        })),
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
        { ...SMB_CSI_DRIVER, version: plane.smbCsiDriver.version },
        ...enabledAddons(plane).map((a) => ({ name: a.name, namespace: a.namespace, chart: a.chart, version: versions.charts[a.name] })),
        {
            name: NVCA_OPERATOR.release,
            namespace: NVCA_OPERATOR.namespace,
            chart: NVCA_OPERATOR.chart,
            version: versions.charts[NVCA_OPERATOR.release],
        },
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
