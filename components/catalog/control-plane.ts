import type { ControlPlaneConfig } from "../../config/model/schema";
import {
    componentMode,
    functionAutoscalerEnabled,
    managedIssuer,
    metricsBackendMode,
    type ObservabilityComponent,
} from "../../config/model/derived-facts";
import type { ValuesContext } from "./control-plane-values/context";
import type { ChartSource, Need, ReleaseEntry, VersionSource } from "../release/entry";
import { BUNDLE_BASE } from "../../config/model/bundle-base";
import type { Plain } from "../../config/model/deep-merge";
import { certManagerValues, cassandraValues, natsValues, nvcfPkiValues, openbaoValues } from "./control-plane-values/dependencies";
import {
    adminIssuerProxyValues,
    apiKeysValues,
    apiValues,
    essValues,
    functionAutoscalerValues,
    grpcProxyValues,
    invocationValues,
    natsAuthCalloutValues,
    notaryValues,
    nvctApiValues,
    rateLimiterValues,
    revalValues,
    sisValues,
    stateMetricsValues,
} from "./control-plane-values/services";
import { llmApiGatewayValues, llmRequestRouterValues, nvcfUiValues, vanityGatewayValues } from "./control-plane-values/addons";
import { gatewayRoutesValues } from "./control-plane-values/ingress";
import {
    defaultMonitorsValues,
    opentelemetryOperatorValues,
    otelCollectorValues,
    prometheusOperatorCrdsValues,
    victoriaMetricsValues,
} from "./control-plane-values/observability";
import { OPENBAO, OPENBAO_API } from "../../lib/openbao/contract";

/** The bundle's helmfile.d files, in the order Helmfile runs them. */
export const PHASES = ["observability-infrastructure", "dependencies", "core", "observability"] as const;
export type Phase = (typeof PHASES)[number];

export { OPENBAO } from "../../lib/openbao/contract";

/** One Helm release of the control-plane bundle, as data. */
export interface CatalogEntry extends ReleaseEntry<ControlPlaneConfig, ValuesContext> {
    readonly phase: Phase;
}

const always = () => true;
const fixed = (ns: string) => () => ns;
const monitoring = (cp: ControlPlaneConfig) => cp.observability.namespace;
const observabilityOn = (cp: ControlPlaneConfig) => cp.observability.profile !== "disabled";
/** An observability component's release: only with a profile, and only when the stack installs it. */
const installs = (component: ObservabilityComponent) => (cp: ControlPlaneConfig) =>
    observabilityOn(cp) && componentMode(cp, component) === "install";

/** `nvcf/helm-nvcf-<release name>`: the bundle's dependency and service templates. */
const nvcfChart = (name: string) => `helm-nvcf-${name}`;

/** The stack's `nvcf` repository. */
const NVCF: ChartSource<ControlPlaneConfig> = { kind: "nvcf" };
/** A chart the observability bundle ships as a local directory: observability.chartsPath when set, else the `nvcf` repository. */
const OBSERVABILITY_LOCAL: ChartSource<ControlPlaneConfig> = { kind: "nvcf", localDirectory: (cp) => cp.observability.chartsPath };
const BUNDLE: VersionSource<ControlPlaneConfig> = { kind: "bundle" };

/**
 * An observability release's `version` key, when the environment sets it. base.yaml's default is
 * the pinned bundle's own version and every environment is merged over it, so only a value that
 * differs from it is the user's pin; otherwise the selected bundle release decides.
 */
const environmentPin = (key: EnvironmentVersionKey): VersionSource<ControlPlaneConfig> => ({
    kind: "bundle",
    pin: (cp) => {
        const given = cp[key].version;
        return given !== (BUNDLE_BASE[key] as Plain).version ? given : undefined;
    },
});

const need = (release: string, why: string): Need => ({ release, why });

/*
 * A release's needs are what it cannot become ready without, or its hooks cannot succeed without
 * (Helm waits for both), read from the charts and services at the pinned commit; docs/internals.md
 * lists the evidence. A peer called only when a request comes is no need (the call is retried),
 * while a pod that dies at start for a missing need crash-loops with up to 5 minutes of back-off.
 */
/** The injector webhook ignores failures, so a pod created before OpenBao serves its role starts without its secrets for good. */
const openbao = need(OPENBAO.release, "its vault-agent init container logs in with its OpenBao role and renders its secrets");
const cassandra = need("cassandra", "its keyspace and role come from cassandra's migrations hook; it is not ready without them");
const nats = (why: string) => need("nats", why);
/** NATS sends every client but the callout's own user through the auth callout. */
const callout = need("nats-auth-callout-service", "its NATS connection at boot is authorized by the auth callout");
const serviceMonitor = need("prometheus-operator-crds", "the bundle's values turn on its ServiceMonitor, an object of that chart's CRD");

export const CATALOG: readonly CatalogEntry[] = [
    // 00-observability-infrastructure: the nested observability stack (the default profile, control, installs it), beside the platform.
    {
        name: "prometheus-operator-crds",
        namespace: (cp) => cp.prometheusOperatorCrds.namespace ?? monitoring(cp),
        chart: "prometheus-operator-crds",
        version: environmentPin("prometheusOperatorCrds"),
        source: NVCF,
        phase: "observability-infrastructure",
        needs: [],
        enabled: installs("prometheusOperatorCrds"),
        values: prometheusOperatorCrdsValues,
        clusterScoped: true,
    },
    {
        name: "opentelemetry-operator",
        namespace: (cp) => cp.opentelemetryOperator.namespace ?? monitoring(cp),
        chart: "opentelemetry-operator",
        version: environmentPin("opentelemetryOperator"),
        source: NVCF,
        phase: "observability-infrastructure",
        // Not after prometheus-operator-crds (NVIDIA's helmfile): only monitors the operator creates itself use them, and the bundle asks for none.
        needs: [],
        enabled: installs("otelOperator"),
        values: opentelemetryOperatorValues,
        clusterScoped: true,
    },
    {
        name: "victoria-metrics",
        namespace: (cp) => cp.victoriaMetrics.namespace ?? monitoring(cp),
        chart: "victoria-metrics-single",
        version: environmentPin("victoriaMetrics"),
        source: NVCF,
        phase: "observability-infrastructure",
        // NVIDIA's helmfile lists no need; its ServiceMonitor has no guard.
        needs: [serviceMonitor],
        enabled: (cp) => observabilityOn(cp) && metricsBackendMode(cp) === "install",
        values: victoriaMetricsValues,
        // The values name the server vmsingle; the collector and the autoscaler reach it there.
        service: { name: "vmsingle", port: 8428 },
    },
    {
        name: "otel-collector",
        namespace: (cp) => cp.collector.namespace ?? monitoring(cp),
        chart: "nvcf-otel-collector",
        version: BUNDLE,
        source: OBSERVABILITY_LOCAL,
        phase: "observability-infrastructure",
        // Not after victoria-metrics (NVIDIA's helmfile): the collector exports to it at runtime and retries.
        needs: [
            need(
                "opentelemetry-operator",
                "its OpenTelemetryCollector is an object of the operator's CRD, admitted by the operator's webhook",
            ),
            need("prometheus-operator-crds", "its target allocator looks for the ServiceMonitor and PodMonitor CRDs once, at start"),
        ],
        enabled: installs("collector"),
        values: otelCollectorValues,
        clusterScoped: true,
    },
    {
        name: "default-monitors",
        namespace: (cp) => cp.defaultMonitors.namespace ?? monitoring(cp),
        chart: "nvcf-default-monitors",
        version: BUNDLE,
        source: OBSERVABILITY_LOCAL,
        phase: "observability-infrastructure",
        needs: [need("prometheus-operator-crds", "its ServiceMonitors are objects of that chart's CRD")],
        enabled: observabilityOn,
        values: defaultMonitorsValues,
    },

    // 01-dependencies
    {
        name: "nats",
        namespace: fixed("nats-system"),
        chart: nvcfChart("nats"),
        version: BUNDLE,
        source: NVCF,
        phase: "dependencies",
        needs: [],
        enabled: (cp) => cp.nats.enabled,
        values: natsValues,
        health: { endpoints: [{ service: "nats-headless", port: 8222, path: "/healthz?js-server-only" }] },
    },
    {
        name: "cert-manager",
        namespace: fixed("cert-manager"),
        chart: nvcfChart("cert-manager"),
        version: BUNDLE,
        source: NVCF,
        phase: "dependencies",
        needs: [],
        enabled: (cp) => cp.certManager.enabled,
        values: certManagerValues,
        clusterScoped: true,
        health: {
            workloads: ["cert-manager", "cert-manager-cainjector", "cert-manager-webhook"].map((name) => ({
                name,
                type: "deployment" as const,
            })),
        },
    },
    {
        // The bundle: "this name MUST not change" (OpenBao's JWT roles and URLs embed it).
        name: OPENBAO.release,
        namespace: fixed("vault-system"),
        chart: nvcfChart("openbao-server"),
        version: BUNDLE,
        source: NVCF,
        phase: "dependencies",
        needs: [
            nats(
                "its migrations hook copies the nats chart's Secrets nats-nkeys and nats-auth-callout-nkeys into OpenBao and fails without them",
            ),
        ],
        enabled: (cp) => cp.openbao.enabled,
        values: openbaoValues,
        clusterScoped: true,
        service: { name: OPENBAO.release, port: OPENBAO.port },
        health: {
            endpoints: [{ service: OPENBAO.release, port: OPENBAO.port, path: `/v1/${OPENBAO_API.health}?standbyok=true` }],
            workloads: [{ name: "openbao-server-agent-injector", type: "deployment" }],
        },
        holdsData: true,
    },
    {
        name: "nvcf-pki",
        namespace: fixed("cert-manager"),
        chart: "helm-nvcf-pki",
        version: BUNDLE,
        source: NVCF,
        phase: "dependencies",
        // Not after openbao-server (NVIDIA's helmfile): nothing in it talks to OpenBao at install, and Helm does not wait for an issuer to be ready.
        needs: [need("cert-manager", "its ClusterIssuer is a cert-manager object, admitted by cert-manager's webhook")],
        enabled: managedIssuer,
        values: nvcfPkiValues,
        clusterScoped: true,
    },
    {
        name: "cassandra",
        namespace: fixed("cassandra-system"),
        chart: nvcfChart("cassandra"),
        version: BUNDLE,
        source: NVCF,
        phase: "dependencies",
        needs: [],
        enabled: (cp) => cp.cassandra.enabled,
        values: cassandraValues,
        health: { workloads: [{ name: "cassandra", type: "statefulset" }] },
        holdsData: true,
    },

    // 02-core
    {
        name: "api-keys",
        namespace: fixed("api-keys"),
        chart: nvcfChart("api-keys"),
        version: BUNDLE,
        source: NVCF,
        phase: "core",
        needs: [openbao, cassandra],
        enabled: always,
        values: apiKeysValues,
        health: { endpoints: [{ service: "api-keys", port: 8080, path: "/health" }] },
    },
    {
        name: "sis",
        namespace: fixed("sis"),
        chart: nvcfChart("sis"),
        version: BUNDLE,
        source: NVCF,
        phase: "core",
        needs: [openbao, cassandra, nats("it creates its JetStream streams at boot and fails after about 5 minutes without NATS"), callout],
        enabled: always,
        values: sisValues,
        service: { name: "api", port: 8080 },
        health: { endpoints: [{ service: "api", port: 8080, path: "/health" }] },
    },
    {
        name: "api",
        namespace: fixed("nvcf"),
        chart: nvcfChart("api"),
        version: BUNDLE,
        source: NVCF,
        phase: "core",
        // After ess-api: the account-bootstrap hook (deploy/helm/cloud-functions/nvcf-api/templates/account-bootstrap-hook-job.yaml,
        // tag cloud-functions/v1.25.1) posts the default account with the account credential's registry credentials, which the
        // API stores in ESS (RegistryCredentialEssService). Its script (scripts/account-bootstrap.sh) waits for the API's
        // /health only and posts once; the Job (restartPolicy OnFailure, the default backoffLimit of 6, no
        // activeDeadlineSeconds) reruns it after the kubelet's back-off: 10, 30, 70, 150 and 310 s after the first post, at
        // most once more near 610 s. ess-api's startup probe (encrypted-secret-store/v1.7.2, ess-api/values.yaml) allows
        // 10 + 180 x 5 = 910 s, so an ESS slow but within it fails the API's release: ready first (75 s against 105 s in
        // the benchmark) is timing, not a guarantee.
        needs: [
            openbao,
            cassandra,
            nats("its NATS connection at boot is fatal when it fails"),
            callout,
            need(
                "ess-api",
                "its account-bootstrap hook creates the default account, whose registry credentials the API stores in ESS; the hook's retries (about 5 to 10 minutes) do not outlast ess-api's startup probe (910 s)",
            ),
        ],
        enabled: always,
        values: apiValues,
        service: { name: "api", port: 8080 },
        health: { endpoints: [{ service: "api", port: 8080, path: "/health" }] },
    },
    {
        name: "nvct-api",
        namespace: fixed("nvcf"),
        chart: nvcfChart("nvct-api"),
        version: BUNDLE,
        source: NVCF,
        phase: "core",
        needs: [openbao, cassandra],
        enabled: always,
        values: nvctApiValues,
        service: { name: "nvct-api", port: 8080 },
        health: { endpoints: [{ service: "nvct-api", port: 8080, path: "/health" }] },
    },
    {
        name: "invocation-service",
        namespace: fixed("nvcf"),
        chart: nvcfChart("invocation-service"),
        version: BUNDLE,
        source: NVCF,
        phase: "core",
        needs: [
            openbao,
            nats("its NATS connection at boot is fatal when it fails"),
            callout,
            need("api", "it connects to the API's gRPC port at boot and exits without it"),
            need("ratelimiter", "it connects to the rate limiter at boot, as to the API"),
        ],
        enabled: always,
        values: invocationValues,
        health: { endpoints: [{ service: "invocation", port: 8080, path: "/health" }] },
    },
    {
        name: "grpc-proxy",
        namespace: fixed("nvcf"),
        chart: nvcfChart("grpc-proxy"),
        version: BUNDLE,
        source: NVCF,
        phase: "core",
        needs: [
            openbao,
            nats("its NATS connection at boot is fatal when it fails"),
            callout,
            need("api", "its /health, its readiness and liveness probe, requires the API's gRPC health to be SERVING"),
        ],
        enabled: always,
        values: grpcProxyValues,
        health: { endpoints: [{ service: "grpc", port: 10081, path: "/health" }] },
    },
    {
        name: "ratelimiter",
        namespace: fixed("nvcf"),
        chart: "helm-nvcf-rate-limiter",
        version: BUNDLE,
        source: NVCF,
        phase: "core",
        // Not after api (NVIDIA's helmfile): its connection to the API is lazy and its health checks only its own cache.
        needs: [openbao],
        enabled: (cp) => cp.rateLimiter.enabled,
        values: rateLimiterValues,
        service: { name: "ratelimiter", port: 7777 },
        health: { endpoints: [{ service: "ratelimiter", port: 8080, path: "/health" }] },
    },
    {
        name: "ess-api",
        namespace: fixed("ess"),
        chart: nvcfChart("ess-api"),
        version: BUNDLE,
        source: NVCF,
        phase: "core",
        needs: [openbao, cassandra],
        enabled: always,
        values: essValues,
        health: { endpoints: [{ service: "ess-api", port: 8080, path: "/health" }] },
    },
    {
        name: "notary-service",
        namespace: fixed("nvcf"),
        chart: nvcfChart("notary-service"),
        version: BUNDLE,
        source: NVCF,
        phase: "core",
        needs: [openbao],
        enabled: always,
        values: notaryValues,
        health: { endpoints: [{ service: "notary", port: 8080, path: "/health" }] },
    },
    // The bundle dropped its need on api-keys ("Finding #22"): the issuer calls api-keys only when a token is asked for.
    {
        name: "admin-issuer-proxy",
        namespace: fixed("api-keys"),
        chart: "helm-admin-token-issuer-proxy",
        version: BUNDLE,
        source: NVCF,
        phase: "core",
        needs: [openbao],
        enabled: (cp) => cp.adminIssuerProxy.enabled,
        values: adminIssuerProxyValues,
        // Its own HTTPRoute for api-keys.<domain>/v1/admin/keys, in the Gateway's namespace.
        attachesToGateways: true,
        health: { endpoints: [{ service: "admin-token-issuer-proxy", port: 8080, path: "/healthz" }] },
    },
    {
        name: "reval",
        namespace: fixed("nvcf"),
        chart: "helm-reval",
        version: BUNDLE,
        source: NVCF,
        phase: "core",
        needs: [],
        enabled: always,
        values: revalValues,
        health: { endpoints: [{ service: "reval", port: 8082, path: "/healthz" }] },
    },
    {
        name: "nats-auth-callout-service",
        namespace: fixed("nats-system"),
        chart: "helm-nvcf-nats-auth-callout-service",
        version: BUNDLE,
        source: NVCF,
        phase: "core",
        needs: [
            nats("it connects to NATS once at start and exits when that fails"),
            need(
                OPENBAO.release,
                "its NKey seed and signature are rendered from OpenBao, where the migrations copy the nats chart's Secret",
            ),
        ],
        enabled: always,
        values: natsAuthCalloutValues,
        health: { endpoints: [{ service: "nvcf-nats-auth-callout-service", port: 8080, path: "/health" }] },
    },
    {
        name: "llm-request-router",
        namespace: fixed("nvcf"),
        chart: "helm-nvcf-llm-request-router",
        version: BUNDLE,
        source: NVCF,
        phase: "core",
        needs: [
            openbao,
            need("api", "it connects to the API's gRPC port at start and fails without it"),
            serviceMonitor,
            need("cert-manager", "with addons.llm.pki its serving Certificate is a cert-manager object"),
            need("nvcf-pki", "with the managed issuer its Certificate names the nvcf-openbao-pki ClusterIssuer"),
        ],
        enabled: (cp) => cp.addons.llm.enabled,
        values: llmRequestRouterValues,
        health: {
            endpoints: [
                { service: "llm-request-router-headless", port: 8000, path: "/healthz" },
                { service: "llm-request-router-headless", port: 8000, path: "/readyz" },
            ],
        },
    },
    {
        name: "llm-api-gateway",
        namespace: fixed("nvcf"),
        chart: "helm-nvcf-llm-api-gateway",
        version: BUNDLE,
        source: NVCF,
        phase: "core",
        // Not after llm-request-router (NVIDIA's helmfile): its client connects on first request, and its /readyz does not call the router.
        needs: [openbao, serviceMonitor],
        enabled: (cp) => cp.addons.llm.enabled,
        values: llmApiGatewayValues,
        health: {
            endpoints: [
                { service: "llm-api-gateway", port: 8080, path: "/healthz" },
                { service: "llm-api-gateway", port: 8080, path: "/readyz" },
            ],
        },
    },
    {
        name: "vanity-gateway",
        namespace: fixed("nvcf"),
        chart: nvcfChart("vanity-gateway"),
        version: BUNDLE,
        source: NVCF,
        phase: "core",
        needs: [need("invocation-service", "its /health, its readiness probe, calls invocation-service's /health")],
        enabled: (cp) => cp.addons.vanityGateway.enabled,
        values: vanityGatewayValues,
        health: { endpoints: [{ service: "vanity-gateway", port: 8080, path: "/health" }] },
    },
    {
        name: "nvcf-ui",
        namespace: fixed("nvcf-ui"),
        chart: "helm-nvcf-ui",
        version: BUNDLE,
        source: NVCF,
        phase: "core",
        needs: [need(OPENBAO.release, "its pre-install hook writes its OpenBao role and paths, and its pods read them")],
        enabled: (cp) => cp.addons.nvcfUi.enabled,
        values: nvcfUiValues,
    },
    {
        name: "ingress",
        namespace: (cp) => cp.ingress.gatewayApi.controllerNamespace,
        chart: "nvcf-gateway-routes",
        version: BUNDLE,
        source: NVCF,
        phase: "core",
        // Not after notary-service, api-keys or nvcf-ui (NVIDIA's helmfile): a route to a Service not ready yet is accepted and resolves when it is; it needs their namespaces (its ReferenceGrants go there), and the Gateways.
        // After prometheus-operator-crds: deploy/helm/gateway-routes/chart/templates/podmonitor-{grpc,shared}.yaml (tag
        // gateway-routes/v1.15.0) test .Capabilities.APIVersions.Has, so a render before the CRD is served drops both PodMonitors
        // without an error, until the next upgrade. No other chart of either plane in NVIDIA/nvcf tests .Capabilities for an API
        // another release installs. A need has no condition: it waits with metrics off too (the CRD chart is first and quick).
        needs: [
            need(
                "prometheus-operator-crds",
                "with global.observability.metrics its two Envoy PodMonitors render only when monitoring.coreos.com/v1/PodMonitor is served (.Capabilities.APIVersions.Has in templates/podmonitor-grpc.yaml and podmonitor-shared.yaml)",
            ),
        ],
        enabled: (cp) => cp.ingress.gatewayApi.enabled,
        values: gatewayRoutesValues,
        attachesToGateways: true,
        writesToOtherNamespaces: true,
        // The UI watches the Envoy Gateway controller that the routes attach to (a prerequisite).
        health: {
            component: "envoy-gateway",
            namespace: "envoy-gateway-system",
            workloads: [{ name: "envoy-gateway", type: "deployment" }],
        },
    },

    // 03-observability
    {
        name: "state-metrics",
        namespace: fixed("nvcf"),
        chart: nvcfChart("state-metrics"),
        version: BUNDLE,
        source: NVCF,
        phase: "observability",
        // Its chart is not published in NVIDIA/nvcf; NVIDIA's migrations create its OpenBao role, so it is taken to read it.
        needs: [openbao],
        enabled: (cp) => cp.stateMetrics.enabled,
        values: stateMetricsValues,
    },
    {
        name: "function-autoscaler",
        namespace: fixed("nvcf"),
        chart: "helm-nvcf-function-autoscaler",
        version: BUNDLE,
        source: NVCF,
        phase: "observability",
        // Not after state-metrics (NVIDIA's helmfile): it reads state-metrics' series from the metrics backend at runtime.
        needs: [openbao, cassandra, need("victoria-metrics", "its readiness stays 503 until the metrics backend answers")],
        enabled: functionAutoscalerEnabled,
        values: functionAutoscalerValues,
    },
];

export const RELEASE_NAMES: readonly string[] = CATALOG.map((e) => e.name);

/**
 * What a GPU cluster's registration waits for, of the control plane (each when enabled): not the
 * whole control plane, so the compute planes start as soon as their path is ready.
 */
export const REGISTRATION_NEEDS: readonly Need[] = [
    need("sis", "ICMS serves the cluster registration; it needs Cassandra, NATS, the auth callout and OpenBao to be ready"),
    need("admin-issuer-proxy", "it mints the admin token the registration presents, when nvcfAdminToken is not set"),
    need("api-keys", "the admin token issuer names it as its service metadata URL"),
    need("ingress", "its routes carry sis.<domain>, where the registration reaches ICMS unless icmsURL says otherwise"),
];

/** A release's catalog entry; throws on a name the catalog does not have (a programming error). */
export function catalogEntry(name: string): CatalogEntry {
    const entry = CATALOG.find((e) => e.name === name);
    if (!entry) throw new Error(`no release ${name} in the catalog`);
    return entry;
}

/** `<service>.<namespace>.svc.cluster.local:<port>` of a release's Service. */
export function serviceAddress(release: string, cp: ControlPlaneConfig): string {
    const entry = catalogEntry(release);
    if (!entry.service) throw new Error(`release ${release} has no Service in the catalog`);
    return `${entry.service.name}.${entry.namespace(cp)}.svc.cluster.local:${entry.service.port}`;
}

/** The observability bundle's environment keys that carry a chart `version` of their own. */
export type EnvironmentVersionKey = "prometheusOperatorCrds" | "opentelemetryOperator" | "victoriaMetrics";
