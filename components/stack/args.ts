import type { ComputePlaneConfig } from "../../config/model/compute-plane-schema";
import type { Settings } from "../../config/settings";
import type { AwsProviders } from "../aws/providers";
import type { ComputePlaneArgs } from "../compute-plane/compute-plane";
import type { ControlPlane, ControlPlaneArgs } from "../control-plane/control-plane";
import type { BundleRelease } from "../bundle/bundle-releases";
import { computePlaneVersions, controlPlaneChartVersions } from "../bundle/versions";
import type { StackClusters } from "../resolve/clusters";
import { resolveRegistry } from "../resolve/registry";
import type { Manifest } from "../control-plane/gateway-api-manifest";

/** The control plane's inputs, from the settings and its resolved cluster. */
export function controlPlaneArgs(
    settings: Settings,
    bundle: BundleRelease,
    clusters: StackClusters,
    aws: AwsProviders,
    gatewayApiManifest: readonly Manifest[] | undefined,
): ControlPlaneArgs {
    const cp = settings.controlPlane;
    const { secrets } = settings;
    return {
        environment: cp,
        ...(gatewayApiManifest ? { gatewayApiManifest } : {}),
        ...(settings.dns.route53 ? { dnsGateway: settings.dns.route53.gateway ?? cp.ingress.gatewayApi.gateways.shared } : {}),
        releaseOverrides: settings.releases,
        chartVersions: controlPlaneChartVersions(bundle, settings.releases, settings.controlPlane),
        cluster: clusters.controlPlane,
        registry: resolveRegistry(settings, aws, {
            imageRegistry: cp.global.image.registry,
            imagePullSecrets: cp.global.imagePullSecrets,
            chartSources: cp.global.helm.sources,
        }),
        accountRegistries: settings.registry.account,
        secrets: {
            ...(secrets.ngcApiKey ? { ngcApiKey: secrets.ngcApiKey } : {}),
            ...(secrets.cassandraPassword ? { cassandraPassword: secrets.cassandraPassword } : {}),
            ...(secrets.sidecarRegistryKey ? { sidecarRegistryKey: secrets.sidecarRegistryKey } : {}),
            ...(secrets.accountRegistryKey ? { accountRegistryKey: secrets.accountRegistryKey } : {}),
        },
        openbao: {
            access: settings.openbaoAccess,
            tokenInConfig: secrets.openbaoToken !== undefined,
            rollout: settings.openbaoRollout,
            credentialRotation: settings.credentialRotation,
        },
        checks: settings.checks,
    };
}

/** One compute plane's inputs: its own image and chart sources where set, else the control plane's. */
export function computePlaneArgs(
    settings: Settings,
    bundle: BundleRelease,
    plane: ComputePlaneConfig,
    clusters: StackClusters,
    aws: AwsProviders,
    controlPlane: Pick<ControlPlane, "registrationNeeds" | "kyverno">,
): ComputePlaneArgs {
    const cp = settings.controlPlane;
    const image = {
        registry: plane.image.registry ?? cp.global.image.registry,
        repository: plane.image.repository ?? cp.global.image.repository,
    };
    const cluster = clusters.computePlanes.get(plane.clusterName);
    if (!cluster) throw new Error(`compute plane ${plane.clusterName} was not resolved`);
    return {
        plane,
        versions: computePlaneVersions(bundle, plane),
        cluster,
        registry: resolveRegistry(settings, aws, {
            imageRegistry: image.registry,
            imagePullSecrets: plane.imagePullSecrets,
            chartSources: { ...cp.global.helm.sources, ...definedOnly(plane.helmSources) },
        }),
        image,
        domain: cp.global.domain,
        registrationNeeds: controlPlane.registrationNeeds,
        ...(controlPlane.kyverno ? { sharedKyverno: controlPlane.kyverno } : {}),
        checks: settings.checks,
    };
}

function definedOnly<T extends object>(value: T): Partial<T> {
    return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
