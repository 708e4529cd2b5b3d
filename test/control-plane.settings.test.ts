import assert from "node:assert/strict";
import { before, describe, test } from "node:test";
import { ProgramRun, release, releases, valuesOf } from "./support/harness";
import { runDev } from "./support/runs";

const names = (run: ProgramRun) =>
    releases(run)
        .map((r) => String(r.inputs.name))
        .sort();
const namespaces = (run: ProgramRun) =>
    run.resources
        .filter((r) => r.type === "kubernetes:core/v1:Namespace")
        .map((r) => (r.inputs.metadata as { name: string }).name)
        .sort();
const dependsOn = (run: ProgramRun, a: string, b: string) => release(run, a).dependencies.includes(release(run, b).urn);

/** Releases whose values differ between two runs. */
function changedReleases(a: ProgramRun, b: ProgramRun): string[] {
    const json = (run: ProgramRun) => new Map(releases(run).map((r) => [String(r.inputs.name), JSON.stringify(r.inputs.values)]));
    const [ja, jb] = [json(a), json(b)];
    return [...ja.keys()].filter((k) => ja.get(k) !== jb.get(k)).sort();
}

let dev: ProgramRun;
before(async () => {
    dev = await runDev();
});

// The tests of a suite start together: their program runs reach the children of
// test/support/program-runs.ts at once, and they read nothing another test changes.
describe("optional releases follow their conditions", { concurrency: true }, () => {
    test("observability.profile disabled drops the monitoring stack and the function autoscaler", async () => {
        const run = await runDev({ observability: { profile: "disabled" } });
        const gone = [
            "prometheus-operator-crds",
            "opentelemetry-operator",
            "victoria-metrics",
            "otel-collector",
            "default-monitors",
            "function-autoscaler",
        ];
        assert.deepEqual(
            names(run),
            names(dev).filter((n) => !gone.includes(n)),
        );
        assert.ok(!namespaces(run).includes("monitoring"));
        assert.ok(names(run).includes("state-metrics"));
    });

    test("metricsBackend.mode existing drops VictoriaMetrics and points the autoscaler at the given backend", async () => {
        const run = await runDev({
            metricsBackend: {
                mode: "existing",
                type: "external",
                remoteWriteEndpoint: "http://vm.example/api/v1/write",
                promqlEndpoint: "http://vm.example",
            },
        });
        assert.ok(!names(run).includes("victoria-metrics"));
        assert.equal(valuesOf(run, "function-autoscaler").functionautoscaler.env.TIMESERIES_DB__TIMESERIES_DB_URL, "http://vm.example");
        assert.equal(valuesOf(run, "otel-collector").config.exporters.prometheusremotewrite.endpoint, "http://vm.example/api/v1/write");
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

    test("rateLimiter.enabled false drops the release and its env on invocation and grpc-proxy", async () => {
        const run = await runDev({ rateLimiter: { enabled: false } });
        assert.ok(!names(run).includes("ratelimiter"));
        assert.equal(valuesOf(run, "invocation-service").invocation.env.RATE_LIMIT_ENABLED, undefined);
        assert.equal(valuesOf(run, "grpc-proxy").grpcproxy.env.RATE_LIMIT_ADDR, undefined);
        assert.equal(
            valuesOf(dev, "invocation-service").invocation.env.RATE_LIMIT_ADDRESS,
            "http://ratelimiter.nvcf.svc.cluster.local:7777",
        );
    });

    test("stateMetrics.enabled false (with observability off) drops state-metrics", async () => {
        const run = await runDev({ stateMetrics: { enabled: false }, observability: { profile: "disabled" } });
        assert.ok(!names(run).includes("state-metrics"));
    });

    test("adminIssuerProxy.enabled false drops the release; no value pretends to skip the grant's migration", async () => {
        const run = await runDev({ adminIssuerProxy: { enabled: false } });
        assert.ok(!names(run).includes("admin-issuer-proxy"));
        // The chart's migrations Job runs every script, migration 10 included: no template reads a switch for it.
        assert.equal(valuesOf(run, "openbao-server").openbao.migrations.adminIssuerProxy, undefined);
    });

    test("adminIssuerProxy.gateway.enabled false keeps the proxy but removes its route", async () => {
        const run = await runDev({ adminIssuerProxy: { gateway: { enabled: false } } });
        assert.equal(valuesOf(run, "admin-issuer-proxy").adminIssuerProxy.gateway.enabled, false);
    });

    test("ingress.gatewayApi.enabled false drops the routes release", async () => {
        const run = await runDev({ ingress: { gatewayApi: { enabled: false } } });
        assert.ok(!names(run).includes("ingress"));
    });

    test("addons.llm.enabled adds the LLM releases after the API, and the router address", async () => {
        const run = await runDev({ addons: { llm: { enabled: true } } });
        assert.deepEqual(names(run), [...names(dev), "llm-api-gateway", "llm-request-router"].sort());
        assert.ok(dependsOn(run, "llm-request-router", "api"));
        assert.ok(dependsOn(run, "llm-api-gateway", "llm-request-router"));
        assert.equal(
            valuesOf(run, "api").api.remoteConfig.configData.nvcf["llm-request-router"]["worker-address"],
            "llm-request-router.nvcf.svc.cluster.local:50071",
        );
        assert.equal(valuesOf(dev, "api").api.remoteConfig, undefined);
    });

    test("a managed LLM issuer adds nvcf-pki in cert-manager after openbao-server and cert-manager", async () => {
        const run = await runDev({
            addons: {
                llm: { enabled: true, pki: { enabled: true, dnsNames: ["llm.nvcf.test"], allowedDomains: "nvcf.test,cluster.local" } },
            },
            openbao: { migrations: { image: { tag: "0.16.2" } } },
        });
        const pki = release(run, "nvcf-pki");
        assert.equal(pki.inputs.namespace, "cert-manager");
        assert.ok(dependsOn(run, "nvcf-pki", "openbao-server"));
        assert.ok(dependsOn(run, "nvcf-pki", "cert-manager"));
        assert.equal(
            valuesOf(run, "nvcf-pki").clusterIssuer.auth.serviceAccount.audience,
            "http://openbao-server.vault-system.svc.cluster.local:8200",
        );
        assert.equal(valuesOf(run, "llm-request-router").llmRequestRouter.pki.tag, undefined);
        assert.equal(valuesOf(run, "llm-request-router").llmRequestRouter.pki.image.tag, "0.16.2");
    });

    test("addons.vanityGateway.enabled adds vanity-gateway after invocation-service, and its route", async () => {
        const run = await runDev({ addons: { vanityGateway: { enabled: true } } });
        assert.ok(dependsOn(run, "vanity-gateway", "invocation-service"));
        assert.equal((run.outputs.routes as Record<string, string>).vanity, "vanity.nvcf.test");
        assert.equal(valuesOf(run, "ingress").nvcfGatewayRoutes.routes.vanityGateway.enabled, true);
    });

    test("addons.nvcfUi.enabled adds nvcf-ui in its namespace; ingress waits for it; full-path image", async () => {
        const run = await runDev({ addons: { nvcfUi: { enabled: true } }, adminIssuerProxy: { enabled: false } });
        assert.equal(release(run, "nvcf-ui").inputs.namespace, "nvcf-ui");
        assert.ok(namespaces(run).includes("nvcf-ui"));
        assert.ok(dependsOn(run, "ingress", "nvcf-ui"));
        const ui = valuesOf(run, "nvcf-ui").nvcfUi;
        assert.equal(ui.image.repository, "nvcr.io/nvidia/nvcf/nvcf-ui");
        const components = (ui.controlPlane.components as { name: string }[]).map((c) => c.name);
        assert.ok(!components.includes("admin-issuer-proxy"), "the health list drops the disabled proxy");
        assert.ok(components.includes("api"));
    });
});

describe("NATS worker auth", { concurrency: true }, () => {
    test("token mode changes exactly three releases: nats, api, nats-auth-callout-service", async () => {
        const run = await runDev({ nats: { workerAuth: "token" } });
        assert.deepEqual(changedReleases(dev, run), ["api", "nats", "nats-auth-callout-service"]);
        assert.deepEqual(valuesOf(run, "nats").nats.authCallout, {
            workerTokenAuth: { webhookUrl: "http://api.nvcf.svc.cluster.local:8080/v2/nvcf/webhook/nats-auth" },
        });
        assert.equal(valuesOf(run, "api").api.natsWorkerAuth, "token");
    });

    test("a new webhook URL restarts the auth callout through its reserved annotation; leaving token mode removes it", async () => {
        const a = await runDev({ nats: { workerAuth: "token" } });
        const b = await runDev({
            nats: { workerAuth: "token", authCallout: { workerTokenAuth: { webhookUrl: "http://api.other.svc.cluster.local:8080/hook" } } },
        });
        const key = "nvcf.nvidia.com/nats-worker-auth-checksum";
        // The chart reads its pod annotations at the top level of its values.
        const annotation = (run: ProgramRun) => valuesOf(run, "nats-auth-callout-service").podAnnotations?.[key];
        assert.match(annotation(a), /^[0-9a-f]{64}$/);
        assert.notEqual(annotation(a), annotation(b));
        assert.equal(annotation(dev), undefined, "nkey mode: no restart annotation, so leaving token mode changes the pods too");
    });

    test("natsAuthCalloutService.serviceConfig.logging reaches the auth callout", async () => {
        const run = await runDev({ natsAuthCalloutService: { serviceConfig: { logging: { level: "debug", sampling: { initial: 0 } } } } });
        // The chart reads `serviceConfig` at the top level of its values, whole, into its config file.
        assert.deepEqual(valuesOf(run, "nats-auth-callout-service").serviceConfig, {
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
    test("each setting's annotations land in its own release and chart key, and nowhere else", async () => {
        // One run with a distinct annotation per setting: each value must show up exactly once.
        const controlPlane: Record<string, unknown> = {};
        for (const [setting] of cases) {
            const annotations = { "example.com/from": setting };
            controlPlane[setting] = setting === "openbao" ? { server: { annotations } } : { podAnnotations: annotations };
        }
        const run = await runDev(controlPlane);
        assert.deepEqual(changedReleases(dev, run), cases.map(([, releaseName]) => releaseName).sort());
        for (const [setting, releaseName, key, path] of cases) {
            let node = key ? valuesOf(run, releaseName)[key] : valuesOf(run, releaseName);
            for (const part of path) node = node[part];
            assert.equal(node["example.com/from"], setting, `${setting} -> ${releaseName} ${key}.${path.join(".")}`);
            const elsewhere = JSON.stringify(valuesOf(run, releaseName)).split(`"example.com/from":`).length - 1;
            assert.equal(elsewhere, 1, `${releaseName} carries exactly one annotation set`);
        }
    });
});

describe("per-release overrides", { concurrency: true }, () => {
    test("a version pin is a spot upgrade of that one release", async () => {
        const run = await runDev({}, { releases: { api: { version: "1.25.2" } } });
        assert.equal(release(run, "api").inputs.version, "1.25.2");
        for (const r of releases(run).filter((r) => r.inputs.name !== "api")) {
            assert.equal(r.inputs.version, release(dev, String(r.inputs.name)).inputs.version);
        }
    });

    test("values are deep-merged last, over what the program builds", async () => {
        const resources = { limits: { cpu: "8", memory: "8192Mi" } };
        const run = await runDev({}, { releases: { cassandra: { values: { cassandra: { resources, replicaCount: 5 } } } } });
        const values = valuesOf(run, "cassandra").cassandra;
        assert.deepEqual(values.resources, resources);
        assert.equal(values.replicaCount, 5);
        assert.equal(values.resourcesPreset, "xlarge", "built values survive the merge");
        assert.deepEqual(changedReleases(dev, run), ["cassandra"]);
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

    test("a local chart directory (air-gapped) and the observability bundle's local charts", async () => {
        const run = await runDev({ global: { helm: { sources: { path: "/charts" } } }, observability: { chartsPath: "/obs/charts" } });
        assert.equal(release(run, "api").inputs.chart, "/charts/helm-nvcf-api");
        assert.equal(release(run, "api").inputs.repositoryOpts, undefined);
        assert.equal(release(run, "otel-collector").inputs.chart, "/obs/charts/nvcf-otel-collector");
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
