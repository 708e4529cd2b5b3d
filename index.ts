import { GatewayDns } from "./components/aws/gateway-dns";
import { eksCluster } from "./components/aws/eks";
import { AwsProviders } from "./components/aws/providers";
import { ComputePlane } from "./components/compute-plane/compute-plane";
import { RELEASE_NAMES } from "./components/control-plane/catalog";
import { ControlPlane } from "./components/control-plane/control-plane";
import { clusterProvider } from "./components/kubernetes/provider";
import { loadSettings } from "./config/load";

/**
 * The program: stack config is validated before anything is declared, then the components
 * are wired. Pulumi calls the exported function and takes its result as the stack outputs.
 */
export = function main() {
    const settings = loadSettings({ releaseNames: RELEASE_NAMES });
    const aws = new AwsProviders();
    const eks = settings.cluster.eks ? eksCluster(settings.cluster.eks, aws) : undefined;
    const provider = eks
        ? clusterProvider("control-plane", { clusterIdentifier: eks.clusterIdentifier }, eks.kubeconfig)
        : clusterProvider("control-plane", settings.cluster, settings.secrets.kubeconfig);
    const controlPlane = new ControlPlane(
        "control-plane",
        { settings, aws, ...(eks ? { generatedKubeconfig: eks.kubeconfig } : {}) },
        { providers: [provider] },
    );
    const computePlanes = settings.computePlanes.map(
        (plane) =>
            new ComputePlane(`compute-plane-${plane.clusterName}`, { plane, settings, controlPlane, aws, controlPlaneEks: eks }),
    );
    const route53 = settings.dns.route53;
    const dns = route53
        ? new GatewayDns("gateway-dns", {
              zoneId: route53.zoneId,
              access: route53,
              gateway: route53.gateway ?? settings.controlPlane.ingress.gatewayApi.gateways.shared,
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
    };
};
