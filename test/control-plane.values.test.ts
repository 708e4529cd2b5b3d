import assert from "node:assert/strict";
import { before, describe, test } from "node:test";
import { devConfig, isSecretAt, ProgramRun, release, runProgram, valuesOf } from "./support/harness";

const b64 = (s: string) => Buffer.from(s).toString("base64");

let run: ProgramRun;
before(async () => {
    const { config, secretKeys } = devConfig();
    run = await runProgram(config, secretKeys);
});

describe("values encode what the runbooks get wrong or leave implicit", () => {
    test("one Cassandra password, set both as DEFAULT_CASSANDRA_PASSWORD and serviceRolePassword (the chart requires them equal)", () => {
        const env = valuesOf(run, "openbao-server").openbao.migrations.env as { name: string; value: string }[];
        const defaultPassword = env.find((e) => e.name === "DEFAULT_CASSANDRA_PASSWORD")?.value;
        const serviceRole = valuesOf(run, "cassandra").cassandra.serviceRolePassword;
        assert.equal(defaultPassword, "generated-cassandra-password");
        assert.equal(serviceRole, defaultPassword);
        assert.notEqual(serviceRole, "ch@ng3m3");
    });

    test("the password comes from @pulumi/random and stays a secret in both releases", () => {
        const password = run.resources.find((r) => r.type === "random:index/randomPassword:RandomPassword");
        assert.ok(password, "a RandomPassword is declared");
        assert.equal(password.inputs.special, false);
        assert.ok(isSecretAt(release(run, "cassandra").rawInputs, ["values", "cassandra", "serviceRolePassword"]));
        assert.ok(isSecretAt(release(run, "openbao-server").rawInputs, ["values", "openbao", "migrations", "env", 0, "value"]));
    });

    test("openbao.migrations.env always has all three entries, ADMIN_CLIENT_ID ncp (Helm replaces lists whole)", () => {
        const env = valuesOf(run, "openbao-server").openbao.migrations.env as { name: string; value: string }[];
        assert.deepEqual(
            env.map((e) => e.name),
            ["DEFAULT_CASSANDRA_PASSWORD", "NVCF_API_SIDECARS_IMAGE_PULL_SECRET", "ADMIN_CLIENT_ID"],
        );
        assert.equal(env[2].value, "ncp");
    });

    test("sidecar secret and account credential are base64 of $oauthtoken:<key>, not a dockerconfigjson", () => {
        const env = valuesOf(run, "openbao-server").openbao.migrations.env as { name: string; value: string }[];
        const sidecar = env.find((e) => e.name === "NVCF_API_SIDECARS_IMAGE_PULL_SECRET")!.value;
        assert.equal(sidecar, b64("$oauthtoken:nvapi-test-key"));
        assert.equal(Buffer.from(sidecar, "base64").toString(), "$oauthtoken:nvapi-test-key");
        const creds = valuesOf(run, "api").api.accountBootstrap.registryCredentials as {
            registryHostname: string;
            secret: { value: string };
            artifactTypes: string[];
        }[];
        assert.deepEqual(
            creds.map((c) => [c.registryHostname, c.artifactTypes]),
            [
                ["nvcr.io", ["CONTAINER"]],
                ["helm.ngc.nvidia.com", ["HELM"]],
            ],
        );
        for (const c of creds) assert.equal(c.secret.value, b64("$oauthtoken:nvapi-test-key"));
        for (const i of [0, 1]) {
            const path = ["values", "api", "accountBootstrap", "registryCredentials", i, "secret", "value"];
            assert.ok(isSecretAt(release(run, "api").rawInputs, path));
        }
    });

    test("account limits reach the account bootstrap", () => {
        assert.deepEqual(valuesOf(run, "api").api.accountBootstrap.limits, {
            maxFunctions: 10,
            maxTasks: 10,
            maxTelemetries: 10,
            maxRegistryCreds: 10,
        });
    });

    test("NATS gets pull secret names only; nats-auth-callout also a top-level imagePullSecrets (each chart reads its own form)", () => {
        assert.deepEqual(valuesOf(run, "nats").nats.global.image.pullSecretNames, ["nvcr-pull-secret"]);
        const callout = valuesOf(run, "nats-auth-callout-service");
        assert.deepEqual(callout.imagePullSecrets, [{ name: "nvcr-pull-secret" }]);
        assert.deepEqual(callout.natsAuthCalloutService.imagePullSecrets, [{ name: "nvcr-pull-secret" }]);
    });

    test("full-path repositories for cert-manager, bare repository for ratelimiter (each chart joins them its own way)", () => {
        const cm = valuesOf(run, "cert-manager")["cert-manager"];
        assert.equal(cm.image.repository, "nvcr.io/nvidia/nvcf/cert-manager-controller");
        assert.equal(cm.webhook.image.repository, "nvcr.io/nvidia/nvcf/cert-manager-webhook");
        assert.equal(cm.startupapicheck.image.repository, "nvcr.io/nvidia/nvcf/cert-manager-startupapicheck");
        assert.deepEqual(valuesOf(run, "ratelimiter").rateLimiter.image, { registry: "nvcr.io", repository: "nvidia/nvcf" });
        assert.deepEqual(valuesOf(run, "api").api.image, { registry: "nvcr.io", repository: "nvidia/nvcf/nvcf-service-oss" });
    });

    test("every release passes only its chart's key, as global.yaml.gotmpl renders it", () => {
        const keys: Record<string, string[]> = {
            nats: ["nats"],
            "cert-manager": ["cert-manager"],
            "openbao-server": ["openbao"],
            cassandra: ["cassandra"],
            "api-keys": ["apikeys"],
            sis: ["sis"],
            api: ["api"],
            "nvct-api": ["nvctApi"],
            "invocation-service": ["invocation"],
            "grpc-proxy": ["grpcproxy"],
            ratelimiter: ["rateLimiter"],
            "ess-api": ["ess"],
            "notary-service": ["notary"],
            "admin-issuer-proxy": ["adminIssuerProxy"],
            reval: ["reval"],
            "nats-auth-callout-service": ["imagePullSecrets", "natsAuthCalloutService"],
            ingress: ["nvcfGatewayRoutes"],
            "state-metrics": ["stateMetrics"],
            "function-autoscaler": ["functionautoscaler"],
        };
        for (const [name, expected] of Object.entries(keys)) {
            assert.deepEqual(Object.keys(valuesOf(run, name)).sort(), expected, name);
        }
    });

    test("fullnameOverride as the bundle sets it", () => {
        const names: [string, string, string][] = [
            ["api-keys", "apikeys", "api-keys"],
            ["api", "api", "nvcf-api"],
            ["invocation-service", "invocation", "invocation-service"],
            ["nvct-api", "nvctApi", "nvct-api"],
            ["grpc-proxy", "grpcproxy", "grpc-proxy"],
            ["ess-api", "ess", "ess-api"],
            ["notary-service", "notary", "notary-service"],
            ["sis", "sis", "spot-instance-service"],
            ["admin-issuer-proxy", "adminIssuerProxy", "admin-token-issuer-proxy"],
            ["reval", "reval", "reval"],
            ["function-autoscaler", "functionautoscaler", "function-autoscaler"],
        ];
        for (const [release, key, fullname] of names) assert.equal(valuesOf(run, release)[key].fullnameOverride, fullname, release);
    });

    test("the admin issuer proxy route and the gateway routes name the configured Gateway", () => {
        const proxy = valuesOf(run, "admin-issuer-proxy").adminIssuerProxy.gateway;
        assert.deepEqual(proxy, {
            enabled: true,
            namespace: "envoy-gateway",
            gatewayRef: { name: "nvcf-gateway" },
            hostname: "api-keys.nvcf.test",
            path: "/v1/admin/keys",
        });
        const routes = valuesOf(run, "ingress").nvcfGatewayRoutes;
        assert.equal(routes.domain, "nvcf.test");
        assert.deepEqual(routes.gateways, {
            shared: { name: "nvcf-gateway", namespace: "envoy-gateway" },
            grpc: { name: "nvcf-gateway", namespace: "envoy-gateway" },
        });
    });

    test("nkey mode by default: no 1.1.0 switch at all, so NATS, the API and the auth callout get the bundle's values", () => {
        assert.equal(valuesOf(run, "nats").nats.workerAuth, undefined);
        assert.equal(valuesOf(run, "nats").nats.authCallout, undefined);
        assert.equal(valuesOf(run, "api").api.natsWorkerAuth, undefined);
        assert.equal(valuesOf(run, "nats-auth-callout-service").podAnnotations, undefined);
    });

    test("the migration that creates the admin issuer grant runs, unswitched, while the proxy is enabled", () => {
        assert.equal(valuesOf(run, "openbao-server").openbao.migrations.adminIssuerProxy, undefined);
    });

    test("the function autoscaler reads the bundled VictoriaMetrics", () => {
        const env = valuesOf(run, "function-autoscaler").functionautoscaler.env;
        assert.equal(env.TIMESERIES_DB__TIMESERIES_DB_URL, "http://vmsingle.monitoring.svc.cluster.local:8428");
        assert.equal(env.NVCF_API__DISABLE_AUTH, "false");
    });

    test("no plain-text key or password anywhere in the declared inputs outside secrets", () => {
        for (const r of run.resources) {
            const plain = JSON.stringify(stripSecrets(r.rawInputs));
            assert.ok(!plain.includes("nvapi-test-key"), `${r.name} leaks the NGC key`);
            assert.ok(!plain.includes(b64("$oauthtoken:nvapi-test-key")), `${r.name} leaks the credential`);
            assert.ok(!plain.includes("generated-cassandra-password"), `${r.name} leaks the Cassandra password`);
        }
    });
});

function stripSecrets(value: unknown): unknown {
    if (Array.isArray(value)) return value.map(stripSecrets);
    if (value && typeof value === "object") {
        const obj = value as Record<string, unknown>;
        if (obj["4dabf18193072939515e22adb298388d"] !== undefined) return "[secret]";
        return Object.fromEntries(Object.entries(obj).map(([k, v]) => [k, stripSecrets(v)]));
    }
    return value;
}
