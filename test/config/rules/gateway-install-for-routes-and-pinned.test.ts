import { test } from "node:test";
import { assertProblems, devRaw } from "../../support/raw-config";
import { P } from "../support";

const key = (k: string) => `${P}:${k}`;

test("install needs the CRD manifest and Envoy Gateway's version, and routes to serve", () => {
    assertProblems(devRaw({ controlPlane: { ingress: { gatewayApi: { enabled: false, install: { enabled: true } } } } }), [
        {
            key: key("controlPlane.ingress.gatewayApi.install.enabled"),
            message: "installs the Gateway the routes attach to, and ingress.gatewayApi.enabled is false (no routes)",
        },
        {
            key: key("controlPlane.ingress.gatewayApi.install.crdsManifest"),
            message: "is required when ingress.gatewayApi.install.enabled is true: the Gateway API CRDs cannot be fetched at run time",
        },
        {
            key: key("controlPlane.ingress.gatewayApi.install.envoyGateway.version"),
            message: "is required when ingress.gatewayApi.install.enabled is true: the stack pins every chart it installs",
        },
    ]);
});
