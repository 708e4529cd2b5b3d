import { test } from "node:test";
import { assertProblems, devRaw } from "../../support/raw-config";
import { CP } from "../support";

test("adminIssuerProxy.enabled false combined with adminIssuerProxy.gateway.enabled false", () => {
    assertProblems(devRaw({ controlPlane: { adminIssuerProxy: { enabled: false, gateway: { enabled: false } } } }), [
        {
            key: `${CP}.adminIssuerProxy.gateway.enabled`,
            message: "adminIssuerProxy.enabled: false already removes the route, so the two are not combined",
            given: false,
            allowed: "leave adminIssuerProxy.gateway.enabled unset when adminIssuerProxy.enabled is false",
        },
    ]);
});
