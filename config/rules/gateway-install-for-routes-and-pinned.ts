import type { ControlPlaneRule, Problem } from "./rule";

/** The Gateway prerequisites the stack installs: only for the routes it installs, and fully pinned. */
export const gatewayInstallForRoutesAndPinned: ControlPlaneRule = (cp) => {
    const gw = cp.ingress.gatewayApi;
    const install = gw.install;
    if (!install.enabled) return [];
    const problems: Problem[] = [];
    if (!gw.enabled) {
        problems.push({
            path: "ingress.gatewayApi.install.enabled",
            message: "installs the Gateway the routes attach to, and ingress.gatewayApi.enabled is false (no routes)",
            given: true,
            allowed: "false, or ingress.gatewayApi.enabled: true",
        });
    }
    if (!install.crdsManifest) {
        problems.push({
            path: "ingress.gatewayApi.install.crdsManifest",
            message: "is required when ingress.gatewayApi.install.enabled is true: the Gateway API CRDs cannot be fetched at run time",
            allowed: "the path of the Gateway API v1.2.0 experimental-install.yaml (the bundle's version), downloaded once",
        });
    }
    if (!install.envoyGateway.version) {
        problems.push({
            path: "ingress.gatewayApi.install.envoyGateway.version",
            message: "is required when ingress.gatewayApi.install.enabled is true: the stack pins every chart it installs",
            allowed: "the exact gateway-helm chart version of an Envoy Gateway release that supports Gateway API v1.2.0",
        });
    }
    return problems;
};
