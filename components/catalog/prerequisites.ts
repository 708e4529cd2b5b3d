import type { ControlPlaneConfig } from "../../config/model/schema";
import type { ReleaseEntry } from "../release/entry";

/**
 * Cluster software NVCF needs but does not ship, which the stack installs on request instead of
 * the user by hand: each a release entry like every other, its chart pinned by a setting (the
 * stack pins every chart that is not NVIDIA's).
 */

/** Kyverno as the stack installs it (`registry.kyverno`). */
export interface KyvernoInstall {
    readonly version: string;
    /** A mirror of the chart's repository (https, oci:// or a path). */
    readonly repository?: string;
    readonly namespace: string;
    readonly values: Record<string, unknown>;
}

/** Kyverno, from the repository NVIDIA's stack operations guide installs it from. */
export const KYVERNO: ReleaseEntry<KyvernoInstall, KyvernoInstall> = {
    name: "kyverno",
    namespace: (k) => k.namespace,
    chart: "kyverno",
    source: { kind: "public", repository: "https://kyverno.github.io/kyverno", mirror: (k) => k.repository },
    version: { kind: "setting", version: (k) => k.version },
    needs: [],
    enabled: () => true,
    values: (k) => k.values,
    clusterScoped: true,
};

/** Envoy Gateway, released as `eg` as NVIDIA's docs and `nvcf-cli` install it (`ingress.gatewayApi.install`). */
export const ENVOY_GATEWAY: ReleaseEntry<ControlPlaneConfig, ControlPlaneConfig> = {
    name: "eg",
    namespace: (cp) => cp.ingress.gatewayApi.controllerNamespace,
    chart: "gateway-helm",
    source: {
        kind: "public",
        repository: "oci://docker.io/envoyproxy",
        mirror: (cp) => cp.ingress.gatewayApi.install.envoyGateway.repository,
    },
    // Required when the install is on (a config rule): the reference pins no Envoy Gateway chart version.
    version: { kind: "setting", version: (cp) => cp.ingress.gatewayApi.install.envoyGateway.version ?? "" },
    needs: [],
    enabled: (cp) => cp.ingress.gatewayApi.install.enabled,
    values: (cp) => cp.ingress.gatewayApi.install.envoyGateway.values,
    clusterScoped: true,
};
