import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { adminIssuerRouteOn, functionAutoscalerEnabled, managedIssuer } from "../config/model/derived-facts";
import { devRaw, parse } from "./support/raw-config";

const cp = (controlPlane: Record<string, unknown>) => parse(devRaw({ controlPlane })).controlPlane;

describe("facts derived from several settings", () => {
    test("function-autoscaler runs with the control and all observability profiles only", () => {
        const on = (profile: string) => functionAutoscalerEnabled(cp({ observability: { profile }, stateMetrics: { enabled: true } }));
        assert.deepEqual(["disabled", "control", "compute", "all"].map(on), [false, true, false, true]);
    });

    test("the stack manages the LLM issuer: cert-manager mode, and clusterIssuer.enabled or the default ClusterIssuer", () => {
        const pki = { enabled: true, dnsNames: ["llm.nvcf.test"], allowedDomains: "nvcf.test", image: { tag: "0.16.2" } };
        const llm = (extra: Record<string, unknown>, enabled = true) =>
            managedIssuer(cp({ addons: { llm: { enabled, pki: { ...pki, ...extra } } } }));
        assert.equal(llm({}), true, "the default ClusterIssuer nvcf-openbao-pki");
        assert.equal(llm({ issuerName: "my-issuer" }), false);
        assert.equal(llm({ issuerName: "my-issuer", clusterIssuer: { enabled: true } }), true);
        assert.equal(llm({ clusterIssuer: { enabled: false } }), false);
        assert.equal(llm({ issuerKind: "Issuer" }), false);
        assert.equal(llm({}, false), false, "no LLM add-on, no issuer");
        assert.equal(managedIssuer(cp({})), false);
    });

    test("the admin issuer proxy's route is on when the proxy and its gateway switch are", () => {
        assert.equal(adminIssuerRouteOn(cp({})), true);
        assert.equal(adminIssuerRouteOn(cp({ adminIssuerProxy: { gateway: { enabled: false } } })), false);
        assert.equal(adminIssuerRouteOn(cp({ adminIssuerProxy: { enabled: false } })), false);
    });
});
