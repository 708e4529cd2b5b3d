import assert from "node:assert/strict";
import { describe, test } from "node:test";
import * as pulumi from "@pulumi/pulumi";
import { runDevExpectingError } from "./support/runs";

const CP = "nvcf-self-managed:controlPlane";

/** Runs the dev stack with a bad setting; asserts the message and that nothing was registered. */
async function rejects(controlPlane: Record<string, unknown>, expected: RegExp[], other: Record<string, unknown> = {}) {
    const { error, resources } = await runDevExpectingError(controlPlane, other);
    for (const pattern of expected) assert.match(error.message, pattern);
    assert.ok(error instanceof pulumi.RunError, "a RunError: Pulumi prints the message without a stack trace");
    assert.deepEqual(resources.map((r) => r.type), [], "no resource may be registered");
    return error.message;
}

const esc = (s: string) => new RegExp(s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));

describe("a bad setting stops the program before any resource, naming key, value and what is allowed", () => {
    test("an unknown nats.workerAuth, with the bundle's own message", async () => {
        await rejects({ nats: { workerAuth: "jwt" } }, [
            esc(`${CP}.nats.workerAuth: nats.workerAuth must be nkey or token`),
            esc('given "jwt"'),
            esc("allowed: nkey, token"),
        ]);
    });

    test("token mode with an empty webhook URL", async () => {
        await rejects({ nats: { workerAuth: "token", authCallout: { workerTokenAuth: { webhookUrl: "" } } } }, [
            esc(`${CP}.nats.authCallout.workerTokenAuth.webhookUrl: must not be empty when nats.workerAuth is token`),
        ]);
    });

    test("a pod annotation value that is not a string", async () => {
        await rejects({ api: { podAnnotations: { "example.com/port": 8080 } } }, [
            esc(`${CP}.api.podAnnotations["example.com/port"]: annotation values must be strings`),
            esc("given 8080"),
        ]);
    });

    test("a chart-managed annotation key such as checksum/config", async () => {
        await rejects({ ess: { podAnnotations: { "checksum/config": "x" } } }, [
            esc(`${CP}.ess.podAnnotations["checksum/config"]: the key checksum/config is managed by the chart itself`),
        ]);
    });

    test("an annotation key with the reserved nvcf.nvidia.com/nats-worker-auth prefix", async () => {
        await rejects({ natsAuthCalloutService: { podAnnotations: { "nvcf.nvidia.com/nats-worker-auth-mode": "x" } } }, [
            esc(`${CP}.natsAuthCalloutService.podAnnotations["nvcf.nvidia.com/nats-worker-auth-mode"]: keys starting with nvcf.nvidia.com/nats-worker-auth are reserved`),
        ]);
    });

    test("adminIssuerProxy.enabled false combined with adminIssuerProxy.gateway.enabled false", async () => {
        await rejects({ adminIssuerProxy: { enabled: false, gateway: { enabled: false } } }, [
            esc(`${CP}.adminIssuerProxy.gateway.enabled: adminIssuerProxy.enabled: false already removes the route`),
        ]);
    });

    test("a domain that is not a DNS name", async () => {
        await rejects({ global: { domain: "NVCF test!" } }, [
            esc(`${CP}.global.domain: global.domain must be a DNS name`),
            esc('given "NVCF test!"'),
        ]);
    });

    test("an unknown top-level key (a typo Helmfile would ignore)", async () => {
        await rejects({ natz: { workerAuth: "token" } }, [esc(`${CP}.natz: unknown key (a typo?)`)]);
    });

    test("an unknown nested key", async () => {
        await rejects({ global: { imagePullSecret: [] } }, [esc(`${CP}.global.imagePullSecret: unknown key`)]);
    });

    test("an unknown project setting", async () => {
        await rejects({}, [esc("nvcf-self-managed:controlPlan: unknown setting")], { controlPlan: { x: 1 } });
    });

    test("an override for a release the catalog does not have", async () => {
        await rejects({}, [esc("nvcf-self-managed:releases.apis: unknown release"), /allowed: .*api-keys/], {
            releases: { apis: { version: "1.0.0" } },
        });
    });

    test("an account limit of 0, which the bundle would silently turn into its default (gotcha 10)", async () => {
        await rejects({ accounts: { limits: { maxFunctions: 0 } } }, [
            esc(`${CP}.accounts.limits.maxFunctions: accounts.limits.maxFunctions must be greater than 0 and less than or equal to 50`),
        ]);
    });

    test("the missing NGC key when pull secrets are on", async () => {
        await rejects({}, [esc("nvcf-self-managed:ngcApiKey: is required for the image pull secrets")], { ngcApiKey: undefined });
    });

    test("missing gateway names, which every release's values require (gotcha 5)", async () => {
        await rejects({ ingress: { gatewayApi: { gateways: { shared: { name: "" } } } } }, [
            esc(`${CP}.ingress.gatewayApi.gateways.shared.name: is required when ingress.gatewayApi.enabled is true`),
        ]);
    });

    test("the observability profile, with the bundle's message", async () => {
        await rejects({ observability: { profile: "full" } }, [
            esc("observability.profile must be disabled, control, compute, or all"),
        ]);
    });

    test("the control profile without state metrics", async () => {
        await rejects({ stateMetrics: { enabled: false } }, [
            esc("function-autoscaler requires stateMetrics.enabled=true for control and all observability profiles"),
        ]);
    });

    test("the bundle's placeholder repository", async () => {
        await rejects({ global: { image: { repository: "YOUR_ORG/YOUR_TEAM" } } }, [
            esc(`${CP}.global.image.repository: still the bundle's placeholder`),
        ]);
    });

    test("every problem is reported at once", async () => {
        const message = await rejects({ nats: { workerAuth: "jwt" }, global: { domain: "bad domain" } }, [/workerAuth/, /global\.domain/]);
        assert.equal(message.split("\n").filter((l) => l.startsWith("  - ")).length, 2);
    });
});
