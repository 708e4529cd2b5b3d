import assert from "node:assert/strict";
import { before, describe, test } from "node:test";
import { canonicalJson } from "../lib/text/canonical-json";
import { routeHostnames } from "../config/model/derived-facts";
import { ProgramRun, release, releases, valuesOf } from "./support/harness";
import { changedReleases, devPlan, type DevPlan } from "./support/plan";
import { runDev } from "./support/runs";

// What the settings change in the control plane's releases is checked on its plan (pure data, the
// same code ControlPlane declares from); what needs the program's resources (secrets, providers,
// Helm's options) runs the program.
const names = (run: ProgramRun) =>
    releases(run)
        .map((r) => String(r.inputs.name))
        .sort();
const namespaces = (run: ProgramRun) =>
    run.resources
        .filter((r) => r.type === "kubernetes:core/v1:Namespace")
        .map((r) => (r.inputs.metadata as { name: string }).name)
        .sort();

let dev: DevPlan;
before(() => {
    dev = devPlan();
});

describe("the plan is what the program declares", () => {
    test("the dev stack's releases: the same names, namespaces, versions, values and release dependencies", async () => {
        const run = await runDev();
        assert.deepEqual(names(run), dev.names);
        const urnOf = new Map(releases(run).map((r) => [r.urn, String(r.inputs.name)]));
        for (const planned of dev.releases) {
            const declared = release(run, planned.entry.name);
            assert.equal(declared.inputs.namespace, planned.namespace, planned.entry.name);
            assert.equal(declared.inputs.version, planned.version, planned.entry.name);
            const dependsOnReleases = declared.dependencies.flatMap((urn) => urnOf.get(urn) ?? []).sort();
            assert.deepEqual(dependsOnReleases, [...planned.dependencies].sort(), planned.entry.name);
            // The releases that carry credentials aside: the plan holds placeholders for them.
            if (!/^(cassandra|openbao-server|api)$/.test(planned.entry.name)) {
                assert.equal(canonicalJson(valuesOf(run, planned.entry.name)), canonicalJson(planned.values), planned.entry.name);
            }
        }
    });
});

describe("optional releases follow their conditions", { concurrency: true }, () => {
    test("observability.profile disabled drops the monitoring stack and the function autoscaler", () => {
        const plan = devPlan({ observability: { profile: "disabled" } });
        const gone = [
            "prometheus-operator-crds",
            "opentelemetry-operator",
            "victoria-metrics",
            "otel-collector",
            "default-monitors",
            "function-autoscaler",
        ];
        assert.deepEqual(
            plan.names,
            dev.names.filter((n) => !gone.includes(n)),
        );
        assert.ok(!plan.namespaces.includes("monitoring"));
        assert.ok(plan.names.includes("state-metrics"));
    });

    test("metricsBackend.mode existing drops VictoriaMetrics and points the autoscaler at the given backend", () => {
        const plan = devPlan({
            metricsBackend: {
                mode: "existing",
                type: "external",
                remoteWriteEndpoint: "http://vm.example/api/v1/write",
                promqlEndpoint: "http://vm.example",
            },
        });
        assert.ok(!plan.names.includes("victoria-metrics"));
        assert.equal(plan.values("function-autoscaler").functionautoscaler.env.TIMESERIES_DB__TIMESERIES_DB_URL, "http://vm.example");
        assert.equal(plan.values("otel-collector").config.exporters.prometheusremotewrite.endpoint, "http://vm.example/api/v1/write");
    });

    test("certManager.enabled false: no cert-manager release, namespace or pull secret there", async () => {
        const run = await runDev({ certManager: { enabled: false } });
        assert.ok(!names(run).includes("cert-manager"));
        assert.ok(!namespaces(run).includes("cert-manager"));
        assert.equal(
            run.resources.filter(
                (r) => r.type === "kubernetes:core/v1:Secret" && (r.inputs.metadata as { namespace: string }).namespace === "cert-manager",
            ).length,
            0,
        );
    });

    test("rateLimiter.enabled false drops the release and its env on invocation and grpc-proxy", () => {
        const plan = devPlan({ rateLimiter: { enabled: false } });
        assert.ok(!plan.names.includes("ratelimiter"));
        assert.equal(plan.values("invocation-service").invocation.env.RATE_LIMIT_ENABLED, undefined);
        assert.equal(plan.values("grpc-proxy").grpcproxy.env.RATE_LIMIT_ADDR, undefined);
        assert.equal(dev.values("invocation-service").invocation.env.RATE_LIMIT_ADDRESS, "http://ratelimiter.nvcf.svc.cluster.local:7777");
    });

    test("stateMetrics.enabled false (with observability off) drops state-metrics", () => {
        const plan = devPlan({ stateMetrics: { enabled: false }, observability: { profile: "disabled" } });
        assert.ok(!plan.names.includes("state-metrics"));
    });

    test("adminIssuerProxy.enabled false drops the release; no value pretends to skip the grant's migration", () => {
        const plan = devPlan({ adminIssuerProxy: { enabled: false } });
        assert.ok(!plan.names.includes("admin-issuer-proxy"));
        // The chart's migrations Job runs every script, migration 10 included: no template reads a switch for it.
        assert.equal(plan.values("openbao-server").openbao.migrations.adminIssuerProxy, undefined);
    });

    test("adminIssuerProxy.gateway.enabled false keeps the proxy but removes its route", () => {
        const plan = devPlan({ adminIssuerProxy: { gateway: { enabled: false } } });
        assert.equal(plan.values("admin-issuer-proxy").adminIssuerProxy.gateway.enabled, false);
    });

    test("ingress.gatewayApi.enabled false drops the routes release", () => {
        const plan = devPlan({ ingress: { gatewayApi: { enabled: false } } });
        assert.ok(!plan.names.includes("ingress"));
    });

    test("addons.llm.enabled adds the LLM releases (the router after the API, the gateway beside it), and the router address", () => {
        const plan = devPlan({ addons: { llm: { enabled: true } } });
        assert.deepEqual(plan.names, [...dev.names, "llm-api-gateway", "llm-request-router"].sort());
        assert.ok(plan.dependsOn("llm-request-router", "api"));
        // Their ServiceMonitors, on in the bundle's values, need the CRDs.
        for (const name of ["llm-request-router", "llm-api-gateway"]) assert.ok(plan.dependsOn(name, "prometheus-operator-crds"), name);
        assert.ok(!plan.dependsOn("llm-api-gateway", "llm-request-router"), "its client connects on the first request");
        assert.equal(
            plan.values("api").api.remoteConfig.configData.nvcf["llm-request-router"]["worker-address"],
            "llm-request-router.nvcf.svc.cluster.local:50071",
        );
        assert.equal(dev.values("api").api.remoteConfig, undefined);
    });

    test("a managed LLM issuer adds nvcf-pki in cert-manager after cert-manager, and the router after it", () => {
        const plan = devPlan({
            addons: {
                llm: { enabled: true, pki: { enabled: true, dnsNames: ["llm.nvcf.test"], allowedDomains: "nvcf.test,cluster.local" } },
            },
            openbao: { migrations: { image: { tag: "0.16.2" } } },
        });
        assert.equal(plan.release("nvcf-pki").namespace, "cert-manager");
        assert.ok(plan.dependsOn("nvcf-pki", "cert-manager"));
        assert.ok(!plan.dependsOn("nvcf-pki", "openbao-server"), "its issuer reaches OpenBao only when it issues");
        assert.ok(plan.dependsOn("llm-request-router", "nvcf-pki"));
        assert.equal(
            plan.values("nvcf-pki").clusterIssuer.auth.serviceAccount.audience,
            "http://openbao-server.vault-system.svc.cluster.local:8200",
        );
        assert.equal(plan.values("llm-request-router").llmRequestRouter.pki.tag, undefined);
        assert.equal(plan.values("llm-request-router").llmRequestRouter.pki.image.tag, "0.16.2");
    });

    test("addons.vanityGateway.enabled adds vanity-gateway after invocation-service, and its route", () => {
        const plan = devPlan({ addons: { vanityGateway: { enabled: true } } });
        assert.ok(plan.dependsOn("vanity-gateway", "invocation-service"));
        assert.equal(routeHostnames(plan.settings.controlPlane).vanity, "vanity.nvcf.test");
        assert.equal(plan.values("ingress").nvcfGatewayRoutes.routes.vanityGateway.enabled, true);
    });

    test("addons.nvcfUi.enabled adds nvcf-ui in its namespace after OpenBao (its hook writes there); full-path image", () => {
        const plan = devPlan({ addons: { nvcfUi: { enabled: true } }, adminIssuerProxy: { enabled: false } });
        assert.equal(plan.release("nvcf-ui").namespace, "nvcf-ui");
        assert.ok(plan.namespaces.includes("nvcf-ui"));
        assert.ok(plan.dependsOn("nvcf-ui", "openbao-server"));
        assert.ok(!plan.dependsOn("ingress", "nvcf-ui"), "its route resolves when the UI is ready");
        const ui = plan.values("nvcf-ui").nvcfUi;
        assert.equal(ui.image.repository, "nvcr.io/nvidia/nvcf/nvcf-ui");
        const components = (ui.controlPlane.components as { name: string }[]).map((c) => c.name);
        assert.ok(!components.includes("admin-issuer-proxy"), "the health list drops the disabled proxy");
        assert.ok(components.includes("api"));
    });
});

describe("NATS worker auth", { concurrency: true }, () => {
    test("token mode changes exactly three releases: nats, api, nats-auth-callout-service", () => {
        const plan = devPlan({ nats: { workerAuth: "token" } });
        assert.deepEqual(changedReleases(dev, plan), ["api", "nats", "nats-auth-callout-service"]);
        assert.deepEqual(plan.values("nats").nats.authCallout, {
            workerTokenAuth: { webhookUrl: "http://api.nvcf.svc.cluster.local:8080/v2/nvcf/webhook/nats-auth" },
        });
        assert.equal(plan.values("api").api.natsWorkerAuth, "token");
    });

    test("a new webhook URL restarts the auth callout through its reserved annotation; leaving token mode removes it", () => {
        const a = devPlan({ nats: { workerAuth: "token" } });
        const b = devPlan({
            nats: { workerAuth: "token", authCallout: { workerTokenAuth: { webhookUrl: "http://api.other.svc.cluster.local:8080/hook" } } },
        });
        const key = "nvcf.nvidia.com/nats-worker-auth-checksum";
        // The chart reads its pod annotations at the top level of its values.
        const annotation = (plan: DevPlan) => plan.values("nats-auth-callout-service").podAnnotations?.[key];
        assert.match(annotation(a), /^[0-9a-f]{64}$/);
        assert.notEqual(annotation(a), annotation(b));
        assert.equal(annotation(dev), undefined, "nkey mode: no restart annotation, so leaving token mode changes the pods too");
    });

    test("natsAuthCalloutService.serviceConfig.logging reaches the auth callout", () => {
        const plan = devPlan({ natsAuthCalloutService: { serviceConfig: { logging: { level: "debug", sampling: { initial: 0 } } } } });
        // The chart reads `serviceConfig` at the top level of its values, whole, into its config file.
        assert.deepEqual(plan.values("nats-auth-callout-service").serviceConfig, {
            logging: { level: "debug", sampling: { initial: 0 } },
        });
    });
});

describe("pod annotations reach exactly the chart key the 1.1.0 document lists", { concurrency: true }, () => {
    const cases: [string, string, string, string[]][] = [
        ["api", "api", "api", ["podAnnotations"]],
        ["nvctApi", "nvct-api", "nvctApi", ["podAnnotations"]],
        ["invocation", "invocation-service", "invocation", ["podAnnotations"]],
        ["grpcproxy", "grpc-proxy", "grpcproxy", ["podAnnotations"]],
        ["apikeys", "api-keys", "apikeys", ["podAnnotations"]],
        ["ess", "ess-api", "ess", ["podAnnotations"]],
        // This chart reads its pod annotations at the top level of its values.
        ["natsAuthCalloutService", "nats-auth-callout-service", "", ["podAnnotations"]],
        ["nats", "nats", "nats", ["podAnnotations"]],
        ["openbao", "openbao-server", "openbao", ["server", "annotations"]],
    ];
    test("each setting's annotations land in its own release and chart key, and nowhere else", () => {
        // One run with a distinct annotation per setting: each value must show up exactly once.
        const controlPlane: Record<string, unknown> = {};
        for (const [setting] of cases) {
            const annotations = { "example.com/from": setting };
            controlPlane[setting] = setting === "openbao" ? { server: { annotations } } : { podAnnotations: annotations };
        }
        const plan = devPlan(controlPlane);
        assert.deepEqual(changedReleases(dev, plan), cases.map(([, releaseName]) => releaseName).sort());
        for (const [setting, releaseName, key, path] of cases) {
            let node = key ? plan.values(releaseName)[key] : plan.values(releaseName);
            for (const part of path) node = node[part];
            assert.equal(node["example.com/from"], setting, `${setting} -> ${releaseName} ${key}.${path.join(".")}`);
            const elsewhere = JSON.stringify(plan.values(releaseName)).split(`"example.com/from":`).length - 1;
            assert.equal(elsewhere, 1, `${releaseName} carries exactly one annotation set`);
        }
    });
});

describe("per-release overrides", { concurrency: true }, () => {
    test("a version pin is a spot upgrade of that one release", () => {
        const plan = devPlan({}, { releases: { api: { version: "1.25.2" } } });
        assert.equal(plan.release("api").version, "1.25.2");
        for (const r of plan.releases.filter((r) => r.entry.name !== "api")) {
            assert.equal(r.version, dev.release(r.entry.name).version);
        }
    });

    test("values are deep-merged last, over what the program builds", () => {
        const resources = { limits: { cpu: "8", memory: "8192Mi" } };
        const plan = devPlan({}, { releases: { cassandra: { values: { cassandra: { resources, replicaCount: 5 } } } } });
        const values = plan.values("cassandra").cassandra;
        assert.deepEqual(values.resources, resources);
        assert.equal(values.replicaCount, 5);
        assert.equal(values.resourcesPreset, "xlarge", "built values survive the merge");
        assert.deepEqual(changedReleases(dev, plan), ["cassandra"]);
    });
});

describe("registries, chart sources and cluster access", { concurrency: true }, () => {
    test("a mirror pulled with node identity: no pull secrets, no imagePullSecrets, no chart credentials", async () => {
        const run = await runDev(
            {
                global: {
                    image: { registry: "registry.example.com", repository: "nvcf" },
                    helm: { sources: { registry: "registry.example.com", repository: "charts" } },
                },
            },
            { registry: { pullSecret: { enabled: false } }, ngcApiKey: undefined },
        );
        assert.equal(run.resources.filter((r) => r.type === "kubernetes:core/v1:Secret").length, 0);
        assert.equal(valuesOf(run, "api").api.imagePullSecrets, undefined);
        assert.equal(valuesOf(run, "nats").nats.global, undefined);
        assert.deepEqual(valuesOf(run, "api").api.accountBootstrap.registryCredentials, []);
        const api = release(run, "api");
        assert.equal(api.inputs.chart, "oci://registry.example.com/charts/helm-nvcf-api");
        assert.equal(api.inputs.repositoryOpts, undefined);
    });

    test("an https chart repository (global.helm.sources.url) with NGC credentials", async () => {
        const run = await runDev({ global: { helm: { sources: { url: "https://helm.ngc.nvidia.com/nvidia/nvcf" } } } });
        const api = release(run, "api");
        assert.equal(api.inputs.chart, "helm-nvcf-api");
        assert.deepEqual(api.inputs.repositoryOpts, {
            repo: "https://helm.ngc.nvidia.com/nvidia/nvcf",
            username: "$oauthtoken",
            password: "nvapi-test-key",
        });
    });

    test("a local chart directory (air-gapped) and the observability bundle's local charts", () => {
        const plan = devPlan({ global: { helm: { sources: { path: "/charts" } } }, observability: { chartsPath: "/obs/charts" } });
        assert.deepEqual(plan.chart("api"), { chart: "/charts/helm-nvcf-api" });
        assert.deepEqual(plan.chart("otel-collector"), { chart: "/obs/charts/nvcf-otel-collector" });
    });

    test("a separate account registry key and sidecar key (multi-org NGC)", async () => {
        const { devConfig, runProgram, withConfig } = await import("./support/harness");
        const { config, secretKeys } = devConfig();
        const run = await runProgram(
            withConfig(config, {
                "nvcf-self-managed:accountRegistryKey": "account-key",
                "nvcf-self-managed:sidecarRegistryKey": "sidecar-key",
            }),
            [...secretKeys, "nvcf-self-managed:accountRegistryKey", "nvcf-self-managed:sidecarRegistryKey"],
        );
        const env = valuesOf(run, "openbao-server").openbao.migrations.env as { name: string; value: string }[];
        assert.equal(env[1].value, Buffer.from("$oauthtoken:sidecar-key").toString("base64"));
        const creds = valuesOf(run, "api").api.accountBootstrap.registryCredentials as { secret: { value: string } }[];
        assert.equal(creds[0].secret.value, Buffer.from("$oauthtoken:account-key").toString("base64"));
    });

    test("cluster.skipAwait turns off Helm's waits on every release", async () => {
        const run = await runDev({}, { cluster: { clusterIdentifier: "dev", skipAwait: true } });
        for (const r of releases(run)) {
            assert.equal(r.inputs.skipAwait, true);
            assert.equal(r.inputs.waitForJobs, false);
        }
    });

    test("the provider gets the context and a stable cluster identifier", async () => {
        const run = await runDev({}, { cluster: { context: "prod-admin", clusterIdentifier: "prod-eks" } });
        const provider = run.resources.find((r) => r.type === "pulumi:providers:kubernetes")!;
        assert.equal(provider.inputs.context, "prod-admin");
        assert.equal(provider.inputs.clusterIdentifier, "prod-eks");
    });
});
