import assert from "node:assert/strict";
import { before, describe, test } from "node:test";
import { CATALOG } from "../components/catalog/control-plane";
import { devConfig, ProgramRun, RecordedResource, release, releases, runProgram, valuesOf } from "./support/harness";
import { devPlan } from "./support/plan";

/** The bundle's release table for the dev environment (its helmfile.d files), written out by hand. */
const EXPECTED: Record<string, { namespace: string; chart: string; version: string }> = {
    "prometheus-operator-crds": { namespace: "monitoring", chart: "prometheus-operator-crds", version: "30.0.0" },
    "opentelemetry-operator": { namespace: "monitoring", chart: "opentelemetry-operator", version: "0.114.1" },
    "victoria-metrics": { namespace: "monitoring", chart: "victoria-metrics-single", version: "0.38.0" },
    "otel-collector": { namespace: "monitoring", chart: "nvcf-otel-collector", version: "0.2.0" },
    "default-monitors": { namespace: "monitoring", chart: "nvcf-default-monitors", version: "0.2.0" },
    nats: { namespace: "nats-system", chart: "helm-nvcf-nats", version: "0.7.1" },
    "cert-manager": { namespace: "cert-manager", chart: "helm-nvcf-cert-manager", version: "0.1.0" },
    "openbao-server": { namespace: "vault-system", chart: "helm-nvcf-openbao-server", version: "0.30.25" },
    cassandra: { namespace: "cassandra-system", chart: "helm-nvcf-cassandra", version: "0.20.1" },
    "api-keys": { namespace: "api-keys", chart: "helm-nvcf-api-keys", version: "1.6.0" },
    sis: { namespace: "sis", chart: "helm-nvcf-sis", version: "2.0.0" },
    api: { namespace: "nvcf", chart: "helm-nvcf-api", version: "1.25.1" },
    "nvct-api": { namespace: "nvcf", chart: "helm-nvcf-nvct-api", version: "1.4.3" },
    "invocation-service": { namespace: "nvcf", chart: "helm-nvcf-invocation-service", version: "1.5.6" },
    "grpc-proxy": { namespace: "nvcf", chart: "helm-nvcf-grpc-proxy", version: "1.7.1" },
    ratelimiter: { namespace: "nvcf", chart: "helm-nvcf-rate-limiter", version: "1.1.0" },
    "ess-api": { namespace: "ess", chart: "helm-nvcf-ess-api", version: "1.7.2" },
    "notary-service": { namespace: "nvcf", chart: "helm-nvcf-notary-service", version: "1.4.2" },
    "admin-issuer-proxy": { namespace: "api-keys", chart: "helm-admin-token-issuer-proxy", version: "1.4.3" },
    reval: { namespace: "nvcf", chart: "helm-reval", version: "1.3.8" },
    "nats-auth-callout-service": {
        namespace: "nats-system",
        chart: "helm-nvcf-nats-auth-callout-service",
        version: "1.1.3",
    },
    ingress: { namespace: "envoy-gateway-system", chart: "nvcf-gateway-routes", version: "1.15.0" },
    "state-metrics": { namespace: "nvcf", chart: "helm-nvcf-state-metrics", version: "1.0.2" },
    "function-autoscaler": { namespace: "nvcf", chart: "helm-nvcf-function-autoscaler", version: "0.2.1" },
};

/**
 * What each release of the dev environment waits for, written out by hand from the charts at the
 * pinned commit (docs/internals.md, Release needs): nothing from NVIDIA's file order.
 */
const NEEDS: Record<string, string[]> = {
    "prometheus-operator-crds": [],
    "opentelemetry-operator": [],
    "victoria-metrics": ["prometheus-operator-crds"],
    "otel-collector": ["opentelemetry-operator", "prometheus-operator-crds"],
    "default-monitors": ["prometheus-operator-crds"],
    nats: [],
    "cert-manager": [],
    "openbao-server": ["nats"],
    cassandra: [],
    "api-keys": ["openbao-server", "cassandra"],
    sis: ["openbao-server", "cassandra", "nats", "nats-auth-callout-service"],
    api: ["openbao-server", "cassandra", "nats", "nats-auth-callout-service", "ess-api"],
    "nvct-api": ["openbao-server", "cassandra"],
    "invocation-service": ["openbao-server", "nats", "nats-auth-callout-service", "api", "ratelimiter"],
    "grpc-proxy": ["openbao-server", "nats", "nats-auth-callout-service", "api"],
    ratelimiter: ["openbao-server"],
    "ess-api": ["openbao-server", "cassandra"],
    "notary-service": ["openbao-server"],
    "admin-issuer-proxy": ["openbao-server"],
    reval: [],
    "nats-auth-callout-service": ["nats", "openbao-server"],
    ingress: ["prometheus-operator-crds"],
    "state-metrics": ["openbao-server"],
    "function-autoscaler": ["openbao-server", "cassandra", "victoria-metrics"],
};

/** NVIDIA's helmfile `needs` that no chart gives a reason for: the program drops them. */
const DROPPED: [string, string][] = [
    ["opentelemetry-operator", "prometheus-operator-crds"],
    ["otel-collector", "victoria-metrics"],
    ["ratelimiter", "api"],
    ["ingress", "notary-service"],
    ["ingress", "api-keys"],
    ["function-autoscaler", "state-metrics"],
];

const NAMESPACES = ["monitoring", "nats-system", "cert-manager", "vault-system", "cassandra-system", "api-keys", "sis", "nvcf", "ess"];

let run: ProgramRun;
before(async () => {
    const { config, secretKeys } = devConfig();
    run = await runProgram(config, secretKeys);
});

function dependsOn(r: RecordedResource, other: RecordedResource): boolean {
    return r.dependencies.includes(other.urn);
}

describe("the dev stack declares the bundle's control plane", () => {
    test("exactly the bundle's releases, with their namespaces, charts and pinned versions", () => {
        const got = Object.fromEntries(
            releases(run).map((r) => {
                const chart = String(r.inputs.chart);
                return [r.inputs.name, { namespace: r.inputs.namespace, chart: chart.split("/").pop(), version: r.inputs.version }];
            }),
        );
        assert.deepEqual(got, EXPECTED);
    });

    test("charts come from the OCI repository of global.helm.sources, with per-release NGC credentials", () => {
        for (const r of releases(run)) {
            assert.match(String(r.inputs.chart), /^oci:\/\/nvcr\.io\/nvidia\/nvcf\/[a-z0-9-]+$/);
            const opts = r.inputs.repositoryOpts as { username?: string; password?: string };
            assert.equal(opts.username, "$oauthtoken", `${r.inputs.name} chart user`);
            assert.equal(opts.password, "nvapi-test-key", `${r.inputs.name} chart password`);
        }
    });

    test("every release carries the bundle's helmDefaults and never creates its namespace", () => {
        for (const r of releases(run)) {
            assert.equal(r.inputs.timeout, 900, `${r.inputs.name} timeout`);
            assert.equal(r.inputs.waitForJobs, true, `${r.inputs.name} waitForJobs`);
            assert.equal(r.inputs.skipAwait, false, `${r.inputs.name} skipAwait`);
            assert.equal(r.inputs.createNamespace, false, `${r.inputs.name} createNamespace`);
            assert.equal(r.inputs.atomic, false, `${r.inputs.name} atomic`);
        }
    });

    test("the namespaces are owned resources; the Gateway's controller namespace is not", () => {
        const owned = run.resources.filter((r) => r.type === "kubernetes:core/v1:Namespace");
        assert.deepEqual(owned.map((n) => (n.inputs.metadata as { name: string }).name).sort(), [...NAMESPACES].sort());
        assert.deepEqual([...(run.outputs.namespaces as string[])].sort(), [...NAMESPACES].sort());
    });

    test("namespaces the Gateway listeners admit carry nvcf/platform=true, and only those", () => {
        for (const ns of run.resources.filter((r) => r.type === "kubernetes:core/v1:Namespace")) {
            const meta = ns.inputs.metadata as { name: string; labels: Record<string, string> };
            const platform = ["api-keys", "ess", "sis", "nvcf"].includes(meta.name);
            assert.equal(meta.labels["nvcf/platform"], platform ? "true" : undefined, meta.name);
        }
    });

    test("a dockerconfigjson pull secret for nvcr.io with user $oauthtoken in every namespace", () => {
        const secrets = run.resources.filter((r) => r.type === "kubernetes:core/v1:Secret");
        assert.deepEqual(secrets.map((s) => (s.inputs.metadata as { namespace: string }).namespace).sort(), [...NAMESPACES].sort());
        for (const s of secrets) {
            assert.equal((s.inputs.metadata as { name: string }).name, "nvcr-pull-secret");
            assert.equal(s.inputs.type, "kubernetes.io/dockerconfigjson");
            const config = JSON.parse((s.inputs.stringData as Record<string, string>)[".dockerconfigjson"]);
            assert.deepEqual(config, {
                auths: {
                    "nvcr.io": {
                        username: "$oauthtoken",
                        password: "nvapi-test-key",
                        auth: Buffer.from("$oauthtoken:nvapi-test-key").toString("base64"),
                    },
                },
            });
            assert.ok(JSON.stringify(s.rawInputs).includes("4dabf18193072939515e22adb298388d"), "content is a Pulumi secret");
        }
    });

    test("the cert-manager namespace survives destroy by default; the others do not", () => {
        const retained = run.resources
            .filter((r) => r.retainOnDelete)
            .map((r) => `${r.type} ${(r.inputs.metadata as { name: string }).name}`);
        assert.deepEqual(retained, ["kubernetes:core/v1:Namespace cert-manager"]);
    });

    test("releases are deleted before a replacement is created (release names and cluster objects clash)", () => {
        for (const r of releases(run)) assert.equal(r.deleteBeforeReplace, true, String(r.inputs.name));
    });

    test("every Kubernetes resource uses the explicit control-plane provider", () => {
        const k8s = run.resources.filter((r) => r.custom && r.type.startsWith("kubernetes:"));
        assert.ok(k8s.length > 30);
        for (const r of k8s) assert.match(r.provider, /pulumi:providers:kubernetes::control-plane::/, r.name);
    });
});

describe("install order follows what each release needs, not the bundle's file order", () => {
    test("each release waits for exactly the releases it needs", () => {
        const all = releases(run);
        for (const r of all) {
            const name = String(r.inputs.name);
            const waitsFor = all.filter((other) => dependsOn(r, other)).map((other) => String(other.inputs.name));
            assert.deepEqual(waitsFor.sort(), [...NEEDS[name]].sort(), name);
        }
    });

    test("the bundle's needs that no chart gives a reason for are gone", () => {
        for (const [name, need] of DROPPED) assert.ok(!dependsOn(release(run, name), release(run, need)), `${name} not after ${need}`);
    });

    test("the gateway routes wait for every namespace the stack owns: their ReferenceGrants go there", () => {
        const ingress = release(run, "ingress");
        for (const ns of run.resources.filter((r) => r.type === "kubernetes:core/v1:Namespace"))
            assert.ok(dependsOn(ingress, ns), (ns.inputs.metadata as { name: string }).name);
    });

    test("every release depends on its namespace and its pull secret", () => {
        const byKind = (type: string, ns: string) =>
            run.resources.find(
                (r) =>
                    r.type === type &&
                    (r.inputs.metadata as { name?: string; namespace?: string })[type.endsWith("Namespace") ? "name" : "namespace"] === ns,
            );
        for (const r of releases(run)) {
            const ns = String(r.inputs.namespace);
            if (ns === "envoy-gateway-system") continue;
            assert.ok(dependsOn(r, byKind("kubernetes:core/v1:Namespace", ns)!), `${r.inputs.name} on namespace`);
            assert.ok(dependsOn(r, byKind("kubernetes:core/v1:Secret", ns)!), `${r.inputs.name} on pull secret`);
        }
    });

    test("pull secrets are created after their namespace", () => {
        for (const s of run.resources.filter((r) => r.type === "kubernetes:core/v1:Secret")) {
            const ns = (s.inputs.metadata as { namespace: string }).namespace;
            const owner = run.resources.find(
                (r) => r.type === "kubernetes:core/v1:Namespace" && (r.inputs.metadata as { name: string }).name === ns,
            )!;
            assert.ok(dependsOn(s, owner), ns);
        }
    });
});

/*
 * Needs that what a chart decides at install time holds: templates that test .Capabilities, hooks
 * that reach another release. Read at NVIDIA/nvcf fadc0f81, each chart at the tag of the version
 * the bundle pins (docs/internals.md, Release needs).
 */
describe("needs the charts' install-time decisions hold", () => {
    const metricsOn = { global: { observability: { metrics: { enabled: true } } } };
    const why = (name: string, need: string) => CATALOG.find((e) => e.name === name)?.needs.find((n) => n.release === need)?.why ?? "";

    test("with metrics on, ingress waits for prometheus-operator-crds: its PodMonitors render only when the CRD is served", () => {
        // gateway-routes/v1.15.0, chart/templates/podmonitor-grpc.yaml and podmonitor-shared.yaml: `if and
        // .Values.nvcfGatewayRoutes.enabled ($.Capabilities.APIVersions.Has "monitoring.coreos.com/v1/PodMonitor")
        // .Values.nvcfGatewayRoutes.podMonitors.enabled`; rendered before the CRD, both are left out without an error.
        const plan = devPlan(metricsOn);
        assert.equal(plan.values("ingress").nvcfGatewayRoutes.podMonitors.enabled, true);
        assert.ok(plan.dependsOn("ingress", "prometheus-operator-crds"));
        assert.match(
            why("ingress", "prometheus-operator-crds"),
            /\.Capabilities\.APIVersions\.Has.*podmonitor-grpc\.yaml and podmonitor-shared\.yaml/,
        );
    });

    test("with metrics off ingress still waits (a need holds no condition); without the stack's CRD release it waits for nothing", () => {
        const plan = devPlan();
        assert.equal(plan.values("ingress").nvcfGatewayRoutes.podMonitors.enabled, false);
        assert.ok(plan.dependsOn("ingress", "prometheus-operator-crds"));
        const none = devPlan({ ...metricsOn, observability: { profile: "disabled" } });
        assert.ok(!none.names.includes("prometheus-operator-crds"));
        assert.deepEqual(none.release("ingress").dependencies, []);
    });

    test("api waits for ess-api: the account-bootstrap hook's retries do not outlast ess-api's startup probe", () => {
        // cloud-functions/v1.25.1, nvcf-api/templates/account-bootstrap-hook-job.yaml: post-install and post-upgrade,
        // restartPolicy OnFailure, neither backoffLimit (Kubernetes' default: 6) nor activeDeadlineSeconds.
        // scripts/account-bootstrap.sh waits for the API's /health only, then posts the account once, exiting non-zero on
        // any answer but 2xx or 409. The kubelet reruns it after 10 s, doubling to at most 300 s; the Job fails when the
        // restarts reach its backoffLimit.
        const backoffLimit = 6;
        const posts = [0];
        for (let restart = 1, delay = 10; restart < backoffLimit; restart++, delay = Math.min(delay * 2, 300))
            posts.push(posts.at(-1)! + delay);
        assert.deepEqual(posts, [0, 10, 30, 70, 150, 310]);
        const lastPost = posts.at(-1)! + 300; // the sixth restart, if it runs before the Job is failed
        // encrypted-secret-store/v1.7.2, ess-api/values.yaml: startupProbe initialDelaySeconds 10, periodSeconds 5, failureThreshold 180.
        const essMayTake = 10 + 180 * 5;
        // The hook starts when the API is ready (105 s after it starts, in the benchmark); ess-api starts beside it.
        const apiReady = 105;
        assert.ok(apiReady + lastPost < essMayTake, "an ess-api within its startup probe can be ready after the hook's last post");
        // The dev stack's default account carries registry credentials (containers and Helm charts): the post reaches ESS.
        assert.equal((valuesOf(run, "api").api.accountBootstrap.registryCredentials as unknown[]).length, 2);
        assert.ok(dependsOn(release(run, "api"), release(run, "ess-api")));
        assert.match(why("api", "ess-api"), /startup probe \(910 s\)/);
    });

    test("every need's reason is the chart's or the service's, never NVIDIA's file order", () => {
        for (const entry of CATALOG)
            for (const n of entry.needs) assert.doesNotMatch(n.why, /helmfile/i, `${entry.name} needs ${n.release}`);
    });
});

describe("stack outputs", () => {
    test("the domain and every route hostname", () => {
        assert.equal(run.outputs.domain, "nvcf.test");
        assert.deepEqual(run.outputs.routes, {
            api: "api.nvcf.test",
            tasks: "tasks.nvcf.test",
            apiKeys: "api-keys.nvcf.test",
            invocation: "invocation.nvcf.test",
            invocationWildcard: "*.invocation.nvcf.test",
            sis: "sis.nvcf.test",
            reval: "reval.nvcf.test",
            llm: "llm.nvcf.test",
        });
    });

    test("each release's name, namespace, chart version and status", () => {
        const out = run.outputs.releases as Record<string, { name: string; namespace: string; version: string; status: string }>;
        assert.deepEqual(Object.keys(out).sort(), Object.keys(EXPECTED).sort());
        assert.deepEqual(out.api, { name: "api", namespace: "nvcf", chart: "helm-nvcf-api", version: "1.25.1", status: "deployed" });
    });
});
