import { test } from "node:test";
import { assertProblems, devRaw, parse } from "../../support/raw-config";
import { CP } from "../support";

test("missing gateway names, which every release's values require", () => {
    const empty = { name: "", namespace: "" };
    const when = "is required when ingress.gatewayApi.enabled is true";
    const whenNats = "is required when ingress.gatewayApi.routes.nats.enabled is true";
    const path = `${CP}.ingress.gatewayApi`;
    const raw = devRaw({
        controlPlane: {
            ingress: {
                gatewayApi: { controllerNamespace: "", routes: { nats: { enabled: true } }, gateways: { shared: empty, grpc: empty } },
            },
        },
    });
    assertProblems(raw, [
        { key: `${path}.gateways.shared.name`, message: when, given: "", allowed: "a non-empty name" },
        { key: `${path}.gateways.shared.namespace`, message: when, given: "", allowed: "a non-empty name" },
        { key: `${path}.gateways.grpc.name`, message: when },
        { key: `${path}.gateways.grpc.namespace`, message: when },
        { key: `${path}.controllerNamespace`, message: when },
        { key: `${path}.gateways.nats.name`, message: whenNats, given: "", allowed: "a non-empty name" },
        { key: `${path}.gateways.nats.namespace`, message: whenNats },
    ]);
});

test("without the Gateway API routes, the admin issuer proxy's route still needs the shared gateway", () => {
    assertProblems(devRaw({ controlPlane: { ingress: { gatewayApi: { enabled: false, gateways: { shared: { name: " " } } } } } }), [
        { key: `${CP}.ingress.gatewayApi.gateways.shared.name`, message: "is required for the admin issuer proxy's route", given: " " },
    ]);
    parse(
        devRaw({
            controlPlane: {
                ingress: { gatewayApi: { enabled: false, gateways: { shared: { name: "" } } } },
                adminIssuerProxy: { gateway: { enabled: false } },
            },
        }),
    );
});
