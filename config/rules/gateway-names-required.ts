import type { ControlPlaneRule, Problem } from "./rule";
import { adminIssuerRouteOn } from "../model/derived-facts";

/**
 * The names and namespaces of the Gateways the routes attach to: global.yaml.gotmpl is rendered
 * for every release and requires them.
 */
export const gatewayNamesRequired: ControlPlaneRule = (cp) => {
    const problems: Problem[] = [];
    const gw = cp.ingress.gatewayApi;
    const required = (path: string, value: string, why: string) => {
        if (value.trim() === "") {
            problems.push({ path, message: `is required ${why}`, given: value, allowed: "a non-empty name" });
        }
    };
    if (gw.enabled || adminIssuerRouteOn(cp)) {
        const why = gw.enabled ? "when ingress.gatewayApi.enabled is true" : "for the admin issuer proxy's route";
        required("ingress.gatewayApi.gateways.shared.name", gw.gateways.shared.name, why);
        required("ingress.gatewayApi.gateways.shared.namespace", gw.gateways.shared.namespace, why);
    }
    if (gw.enabled) {
        const why = "when ingress.gatewayApi.enabled is true";
        required("ingress.gatewayApi.gateways.grpc.name", gw.gateways.grpc.name, why);
        required("ingress.gatewayApi.gateways.grpc.namespace", gw.gateways.grpc.namespace, why);
        // The ingress release installs into the Envoy Gateway controller's namespace, so it is required.
        required("ingress.gatewayApi.controllerNamespace", gw.controllerNamespace, why);
    }
    if (gw.enabled && gw.routes.nats.enabled) {
        const why = "when ingress.gatewayApi.routes.nats.enabled is true";
        required("ingress.gatewayApi.gateways.nats.name", gw.gateways.nats.name, why);
        required("ingress.gatewayApi.gateways.nats.namespace", gw.gateways.nats.namespace, why);
    }
    return problems;
};
