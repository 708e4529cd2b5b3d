import { GatewayDns } from "./components/aws/gateway-dns";
import { AwsProviders } from "./components/aws/providers";
import { ComputePlane } from "./components/compute-plane/compute-plane";
import { NVCA_OPERATOR } from "./components/catalog/compute-plane";
import { RELEASE_NAMES } from "./components/catalog/control-plane";
import { ControlPlane } from "./components/control-plane/control-plane";
import { readGatewayApiManifest } from "./components/control-plane/gateway-api-manifest";
import { clusterProvider } from "./components/kubernetes/provider";
import { computePlaneArgs, controlPlaneArgs } from "./components/stack/args";
import { resolveClusters } from "./components/resolve/clusters";
import { loadSettings } from "./config/load";
import { bundleReleaseNames, selectedBundleRelease } from "./components/bundle/bundle-releases";
import { Bundle } from "./components/bundle/bundle";
import { RECEIPT } from "./components/bundle/receipt";

/**
 * The program: stack config is validated before anything is declared, every cluster and
 * registry is resolved once, then the components are wired. Pulumi calls the exported function
 * and takes its result as the stack outputs.
 */
export = function main() {
    const settings = loadSettings({ releaseNames: RELEASE_NAMES, bundleReleases: bundleReleaseNames() });
    const bundle = selectedBundleRelease(settings.bundle.release);
    // Every file the stack file names is read before the first resource: a bad one stops the program with nothing registered.
    const gatewayApiManifest = readGatewayApiManifest(settings.controlPlane);
    const aws = new AwsProviders();
    const clusters = resolveClusters(settings, aws);
    const provider = clusterProvider("control-plane", clusters.controlPlane);
    const controlPlane = new ControlPlane("control-plane", controlPlaneArgs(settings, bundle, clusters, aws, gatewayApiManifest), {
        providers: [provider],
    });
    const computePlanes = settings.computePlanes.map(
        (plane) =>
            new ComputePlane(`compute-plane-${plane.clusterName}`, computePlaneArgs(settings, bundle, plane, clusters, aws, controlPlane)),
    );
    // After every release and gate of every cluster: the receipt says what the environment runs.
    const bundleState = new Bundle("bundle", {
        release: bundle,
        controlPlane: {
            releases: controlPlane.releases,
            goals: controlPlane.goals,
            namespace: controlPlane.namespaces.byName[RECEIPT.namespace].metadata.name,
        },
        computePlanes: Object.fromEntries(
            computePlanes.map((c) => [c.outputs.clusterName, { ...c.addons, [NVCA_OPERATOR.name]: c.operator }]),
        ),
        provider,
        cluster: clusters.controlPlane,
        after: [controlPlane, ...computePlanes],
    });
    const route53 = settings.dns.route53;
    const dns = route53
        ? new GatewayDns("gateway-dns", {
              zoneId: route53.zoneId,
              access: route53,
              gateway: route53.gateway ?? settings.controlPlane.ingress.gatewayApi.gateways.shared,
              ...(controlPlane.gateway?.addressedGateway ? { declared: controlPlane.gateway.addressedGateway } : {}),
              hostnames: [...Object.values(controlPlane.outputs.routes), `nats.${settings.controlPlane.global.domain}`],
              ttl: route53.ttl,
              kubernetes: provider,
              aws,
          })
        : undefined;
    return {
        ...controlPlane.outputs,
        ...(dns ? { gatewayAddress: dns.address } : {}),
        computePlanes: Object.fromEntries(computePlanes.map((c) => [c.outputs.clusterName, c.outputs])),
        upgrade: bundleState.outputs,
    };
};
