import assert from "node:assert/strict";
import { describe, test } from "node:test";
import * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import { credentialLike } from "../config/model/errors";
import { structuredSettingsSchema } from "../config/model/keys";
import { unwrap } from "../config/model/suggest";
import { configError, devRaw, RawChanges } from "./support/raw-config";
import { runDevExpectingError } from "./support/runs";

const CP = "nvcf-self-managed:controlPlane";

/** parseSettings on the dev stack with a bad setting (no program run); asserts the message. */
function rejects(controlPlane: Record<string, unknown>, expected: RegExp[], other: Omit<RawChanges, "controlPlane"> = {}) {
    const error = configError(devRaw({ ...other, controlPlane }));
    for (const pattern of expected) assert.match(error.message, pattern);
    assert.ok(error instanceof pulumi.RunError, "a RunError: Pulumi prints the message without a stack trace");
    return error.message;
}

/** Runs the whole dev stack with a bad setting; asserts the message and that nothing was registered. */
async function programRejects(controlPlane: Record<string, unknown>, expected: RegExp[], other: Record<string, unknown> = {}) {
    const { error, resources } = await runDevExpectingError(controlPlane, other);
    for (const pattern of expected) assert.match(error.message, pattern);
    assert.ok(error instanceof pulumi.RunError, "a RunError: Pulumi prints the message without a stack trace");
    assert.deepEqual(
        resources.map((r) => r.type),
        [],
        "no resource may be registered",
    );
    return error.message;
}

const esc = (s: string) => new RegExp(s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));

describe("a bad setting is one ConfigError naming key, value and what is allowed", () => {
    test("an unknown nats.workerAuth, with the bundle's own message", () => {
        rejects({ nats: { workerAuth: "jwt" } }, [
            esc(`${CP}.nats.workerAuth: nats.workerAuth must be nkey or token`),
            esc('given "jwt"'),
            esc("allowed: nkey, token"),
        ]);
    });

    test("token mode with an empty webhook URL", () => {
        rejects({ nats: { workerAuth: "token", authCallout: { workerTokenAuth: { webhookUrl: "" } } } }, [
            esc(`${CP}.nats.authCallout.workerTokenAuth.webhookUrl: must not be empty when nats.workerAuth is token`),
        ]);
    });

    test("a pod annotation value that is not a string", () => {
        rejects({ api: { podAnnotations: { "example.com/port": 8080 } } }, [
            esc(`${CP}.api.podAnnotations["example.com/port"]: annotation values must be strings`),
            esc("given 8080"),
        ]);
    });

    test("a chart-managed annotation key such as checksum/config", () => {
        rejects({ ess: { podAnnotations: { "checksum/config": "x" } } }, [
            esc(`${CP}.ess.podAnnotations["checksum/config"]: the key checksum/config is managed by the chart itself`),
        ]);
    });

    test("an annotation key with the reserved nvcf.nvidia.com/nats-worker-auth prefix", () => {
        rejects({ natsAuthCalloutService: { podAnnotations: { "nvcf.nvidia.com/nats-worker-auth-mode": "x" } } }, [
            esc(
                `${CP}.natsAuthCalloutService.podAnnotations["nvcf.nvidia.com/nats-worker-auth-mode"]: keys starting with nvcf.nvidia.com/nats-worker-auth are reserved`,
            ),
        ]);
    });

    test("adminIssuerProxy.enabled false combined with adminIssuerProxy.gateway.enabled false", () => {
        rejects({ adminIssuerProxy: { enabled: false, gateway: { enabled: false } } }, [
            esc(`${CP}.adminIssuerProxy.gateway.enabled: adminIssuerProxy.enabled: false already removes the route`),
        ]);
    });

    test("a domain that is not a DNS name", () => {
        rejects({ global: { domain: "NVCF test!" } }, [
            esc(`${CP}.global.domain: global.domain must be a DNS name`),
            esc('given "NVCF test!"'),
        ]);
    });

    test("an unknown top-level key (a typo Helmfile would ignore)", () => {
        rejects({ natz: { workerAuth: "token" } }, [esc(`${CP}.natz: unknown key (did you mean "nats"?)`)]);
    });

    test("an unknown nested key", () => {
        rejects({ global: { imagePullSecret: [] } }, [esc(`${CP}.global.imagePullSecret: unknown key`)]);
    });

    test("an override for a release the catalog does not have", () => {
        rejects({}, [esc("nvcf-self-managed:releases.apis: unknown release"), /allowed: .*api-keys/], {
            values: { releases: { apis: { version: "1.0.0" } } },
        });
    });

    test("an account limit of 0, which the bundle would silently turn into its default", () => {
        rejects({ accounts: { limits: { maxFunctions: 0 } } }, [
            esc(`${CP}.accounts.limits.maxFunctions: accounts.limits.maxFunctions must be greater than 0 and less than or equal to 50`),
        ]);
    });

    test("missing gateway names, which every release's values require", () => {
        rejects({ ingress: { gatewayApi: { gateways: { shared: { name: "" } } } } }, [
            esc(`${CP}.ingress.gatewayApi.gateways.shared.name: is required when ingress.gatewayApi.enabled is true`),
        ]);
    });

    test("the observability profile, with the bundle's message", () => {
        rejects({ observability: { profile: "full" } }, [esc("observability.profile must be disabled, control, compute, or all")]);
    });

    test("the control profile without state metrics", () => {
        rejects({ stateMetrics: { enabled: false } }, [
            esc("function-autoscaler requires stateMetrics.enabled=true for control and all observability profiles"),
        ]);
    });

    test("the bundle's placeholder repository", () => {
        rejects({ global: { image: { repository: "YOUR_ORG/YOUR_TEAM" } } }, [
            esc(`${CP}.global.image.repository: still the bundle's placeholder`),
        ]);
    });

    test("every problem is reported at once", () => {
        const message = rejects({ nats: { workerAuth: "jwt" }, global: { domain: "bad domain" } }, [/workerAuth/, /global\.domain/]);
        assert.equal(message.split("\n").filter((l) => l.startsWith("  - ")).length, 2);
    });
});

describe("the program stops on a bad setting before any resource, with a RunError", () => {
    test("an unknown project setting (found by reading the stack's config)", async () => {
        await programRejects({}, [esc("nvcf-self-managed:controlPlan: unknown setting")], { controlPlan: { x: 1 } });
    });

    test("the missing NGC key when pull secrets are on (a cross-key rule on the secrets read)", async () => {
        await programRejects({}, [esc("nvcf-self-managed:ngcApiKey: is required for the image pull secrets")], { ngcApiKey: undefined });
    });

    test("every problem of the parse is reported at once", async () => {
        const message = await programRejects({ nats: { workerAuth: "jwt" }, global: { domain: "bad domain" } }, [
            /workerAuth/,
            /global\.domain/,
        ]);
        assert.equal(message.split("\n").filter((l) => l.startsWith("  - ")).length, 2);
    });
});

describe("a typo never prints a secret", () => {
    const LEAK = "hunter2-LEAK";
    test("a value under an unknown key is not echoed, at any nesting level; the key and the nearest known one are", () => {
        for (const [changes, key] of [
            [{ controlPlane: { cassandra: { pasword: LEAK } } }, `${CP}.cassandra.pasword`],
            [{ controlPlane: { cassandra: { migrations: { passsword: LEAK } } } }, `${CP}.cassandra.migrations.passsword`],
            [{ controlPlane: { global: { helm: { sources: { pasword: LEAK } } } } }, `${CP}.global.helm.sources.pasword`],
            [{ controlPlane: { nats: { nkeySeed: { value: LEAK } } } }, `${CP}.nats.nkeySeed`],
        ] as const) {
            const message = configError(devRaw(changes as RawChanges)).message;
            assert.ok(message.includes(`${key}: unknown key`), message);
            assert.ok(!message.includes(LEAK), `the value is printed: ${message}`);
        }
    });

    test("every credential-like key of the stack file, misspelled at each level of its path, never prints its value", () => {
        // Every key the schema knows that is named like a credential (a compute plane's at index 0).
        const paths: (string | number)[][] = [];
        const walk = (schema: z.ZodType | undefined, at: (string | number)[]) => {
            const inner = unwrap(schema);
            if (!inner || at.length > 12) return;
            const def = inner._zod.def as unknown as Record<string, unknown>;
            if (inner instanceof z.ZodObject) {
                for (const [k, child] of Object.entries(inner.shape)) {
                    if (credentialLike(k)) paths.push([...at, k]);
                    walk(child as z.ZodType, [...at, k]);
                }
            } else if (def.type === "array") walk(def.element as z.ZodType, [...at, 0]);
        };
        for (const [key, schema] of Object.entries(structuredSettingsSchema.shape)) walk(schema as z.ZodType, [key]);
        assert.ok(paths.length >= 10, `credential-like keys: ${paths.map((p) => p.join(".")).join(", ")}`);
        let cases = 0;
        for (const path of paths) {
            for (let level = 1; level < path.length; level++) {
                if (typeof path[level] !== "string") continue;
                // The path up to `level` misspelled there (a letter dropped), holding the rest with the secret at its end.
                let value: unknown = LEAK;
                for (let i = path.length - 1; i > level; i--) value = typeof path[i] === "number" ? [value] : { [path[i]]: value };
                const typo = String(path[level]).slice(0, -1) || "x";
                let values: unknown = { [typo]: value };
                for (let i = level - 1; i >= 1; i--) values = typeof path[i] === "number" ? [values] : { [path[i]]: values };
                const changes = { values: { [path[0]]: values } } as RawChanges;
                let message: string;
                try {
                    message = configError(devRaw(changes)).message;
                } catch {
                    continue; // A typo that happens to parse (an optional key's value dropped) prints nothing.
                }
                cases++;
                assert.ok(!message.includes(LEAK), `${path.join(".")} misspelled at ${String(path[level])}: ${message}`);
            }
        }
        assert.ok(cases >= paths.length, `${cases} cases`);
    });

    test("a bad value under a key named like a credential is not echoed; other values are", () => {
        const message = configError(devRaw({ controlPlane: { global: { helm: { sources: { password: 4242 } } } } as never })).message;
        assert.match(message, /sources\.password: .*given a value not shown \(the key may hold a credential\)/);
        assert.ok(!message.includes("4242"), message);
        rejects({ nats: { workerAuth: "jwt" } }, [esc('given "jwt"')]);
    });
});
