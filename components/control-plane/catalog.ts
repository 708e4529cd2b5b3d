import type { ControlPlaneConfig } from "../../config/schema";
import { functionAutoscalerEnabled, managedIssuer } from "../../config/derived-facts";
import type { Values, ValuesContext } from "./values/context";
import { certManagerValues, cassandraValues, natsValues, nvcfPkiValues, openbaoValues } from "./values/dependencies";
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
} from "./values/services";
import { llmApiGatewayValues, llmRequestRouterValues, nvcfUiValues, vanityGatewayValues } from "./values/addons";
import { gatewayRoutesValues } from "./values/ingress";
import {
    defaultMonitorsValues,
    opentelemetryOperatorValues,
    otelCollectorValues,
    prometheusOperatorCrdsValues,
    victoriaMetricsValues,
} from "./values/observability";

/** The bundle's helmfile.d files, in the order Helmfile runs them. */
export const PHASES = ["observability-infrastructure", "dependencies", "core", "observability"] as const;
export type Phase = (typeof PHASES)[number];

/** Where a release's chart comes from. */
export type ChartSource =
    /** The stack's `nvcf` repository (global.helm.sources). */
    | "nvcf"
    /** A chart the observability bundle ships as a local directory (observability.chartsPath). */
    | "observability-local";

/** One Helm release of the bundle, as data. */
export interface CatalogEntry {
    readonly name: string;
    readonly namespace: (cp: ControlPlaneConfig) => string;
    readonly chart: string;
    readonly version: string;
    readonly source: ChartSource;
    readonly phase: Phase;
    /** The bundle's `needs`, by release name; an edge to a release that is off is dropped. */
    readonly needs: readonly string[];
    /** The bundle's `condition` (or the template guard around the release). */
    readonly enabled: (cp: ControlPlaneConfig) => boolean;
    readonly values: (ctx: ValuesContext) => Values;
    /** Cluster-scoped objects (CRDs, ClusterIssuers, webhooks) in the chart. */
    readonly clusterScoped?: boolean;
}

const always = () => true;
const fixed = (ns: string) => () => ns;
const monitoring = (cp: ControlPlaneConfig) => cp.observability.namespace;
const observabilityOn = (cp: ControlPlaneConfig) => cp.observability.profile !== "disabled";

/** `nvcf/helm-nvcf-<release name>`: the bundle's dependency and service templates. */
const nvcfChart = (name: string) => `helm-nvcf-${name}`;

export const CATALOG: readonly CatalogEntry[] = [
    // 00-observability-infrastructure: the nested observability stack (gotcha 19: on by default).
    {
        name: "prometheus-operator-crds",
        namespace: monitoring,
        chart: "prometheus-operator-crds",
        version: "30.0.0",
        source: "nvcf",
        phase: "observability-infrastructure",
        needs: [],
        enabled: observabilityOn,
        values: prometheusOperatorCrdsValues,
        clusterScoped: true,
    },
    {
        name: "opentelemetry-operator",
        namespace: monitoring,
        chart: "opentelemetry-operator",
        version: "0.114.1",
        source: "nvcf",
        phase: "observability-infrastructure",
        needs: ["prometheus-operator-crds"],
        enabled: observabilityOn,
        values: opentelemetryOperatorValues,
        clusterScoped: true,
    },
    {
        name: "victoria-metrics",
        namespace: monitoring,
        chart: "victoria-metrics-single",
        version: "0.38.0",
        source: "nvcf",
        phase: "observability-infrastructure",
        needs: [],
        enabled: (cp) => observabilityOn(cp) && cp.metricsBackend.mode === "install",
        values: victoriaMetricsValues,
    },
    {
        name: "otel-collector",
        namespace: monitoring,
        chart: "nvcf-otel-collector",
        version: "0.2.0",
        source: "observability-local",
        phase: "observability-infrastructure",
        needs: ["opentelemetry-operator", "prometheus-operator-crds", "victoria-metrics"],
        enabled: observabilityOn,
        values: otelCollectorValues,
        clusterScoped: true,
    },
    {
        name: "default-monitors",
        namespace: monitoring,
        chart: "nvcf-default-monitors",
        version: "0.2.0",
        source: "observability-local",
        phase: "observability-infrastructure",
        needs: ["prometheus-operator-crds"],
        enabled: observabilityOn,
        values: defaultMonitorsValues,
    },

    // 01-dependencies
    {
        name: "nats",
        namespace: fixed("nats-system"),
        chart: nvcfChart("nats"),
        version: "0.7.1",
        source: "nvcf",
        phase: "dependencies",
        needs: [],
        enabled: (cp) => cp.nats.enabled,
        values: natsValues,
    },
    {
        name: "cert-manager",
        namespace: fixed("cert-manager"),
        chart: nvcfChart("cert-manager"),
        version: "0.1.0",
        source: "nvcf",
        phase: "dependencies",
        needs: [],
        enabled: (cp) => cp.certManager.enabled,
        values: certManagerValues,
        clusterScoped: true,
    },
    {
        // The bundle: "this name MUST not change" (OpenBao's JWT roles and URLs embed it).
        name: "openbao-server",
        namespace: fixed("vault-system"),
        chart: nvcfChart("openbao-server"),
        version: "0.30.25",
        source: "nvcf",
        phase: "dependencies",
        needs: ["nats"],
        enabled: (cp) => cp.openbao.enabled,
        values: openbaoValues,
        clusterScoped: true,
    },
    {
        name: "nvcf-pki",
        namespace: fixed("cert-manager"),
        chart: "helm-nvcf-pki",
        version: "0.1.0",
        source: "nvcf",
        phase: "dependencies",
        needs: ["openbao-server", "cert-manager"],
        enabled: managedIssuer,
        values: nvcfPkiValues,
        clusterScoped: true,
    },
    {
        name: "cassandra",
        namespace: fixed("cassandra-system"),
        chart: nvcfChart("cassandra"),
        version: "0.20.1",
        source: "nvcf",
        phase: "dependencies",
        needs: [],
        enabled: (cp) => cp.cassandra.enabled,
        values: cassandraValues,
    },

    // 02-core
    core("api-keys", "api-keys", nvcfChart("api-keys"), "1.6.0", [], always, apiKeysValues),
    core("sis", "sis", nvcfChart("sis"), "2.0.0", [], always, sisValues),
    // api needs ess-api for its account-bootstrap hook, not to start.
    core("api", "nvcf", nvcfChart("api"), "1.25.1", ["ess-api"], always, apiValues),
    core("nvct-api", "nvcf", nvcfChart("nvct-api"), "1.4.3", [], always, nvctApiValues),
    core("invocation-service", "nvcf", nvcfChart("invocation-service"), "1.5.6", ["api"], always, invocationValues),
    core("grpc-proxy", "nvcf", nvcfChart("grpc-proxy"), "1.7.1", ["api"], always, grpcProxyValues),
    core("ratelimiter", "nvcf", "helm-nvcf-rate-limiter", "1.1.0", ["api"], (cp) => cp.rateLimiter.enabled, rateLimiterValues),
    core("ess-api", "ess", nvcfChart("ess-api"), "1.7.2", [], always, essValues),
    core("notary-service", "nvcf", nvcfChart("notary-service"), "1.4.2", [], always, notaryValues),
    // Gotcha 3 ("Finding #22"): no needs, so a flaky sibling never skips it.
    core(
        "admin-issuer-proxy",
        "api-keys",
        "helm-admin-token-issuer-proxy",
        "1.4.3",
        [],
        (cp) => cp.adminIssuerProxy.enabled,
        adminIssuerProxyValues,
    ),
    core("reval", "nvcf", "helm-reval", "1.3.8", [], always, revalValues),
    core(
        "nats-auth-callout-service",
        "nats-system",
        "helm-nvcf-nats-auth-callout-service",
        "1.1.3",
        [],
        always,
        natsAuthCalloutValues,
    ),
    core("llm-request-router", "nvcf", "helm-nvcf-llm-request-router", "1.7.2", ["api"], (cp) => cp.addons.llm.enabled, llmRequestRouterValues),
    core(
        "llm-api-gateway",
        "nvcf",
        "helm-nvcf-llm-api-gateway",
        "1.4.1",
        ["llm-request-router"],
        (cp) => cp.addons.llm.enabled,
        llmApiGatewayValues,
    ),
    core(
        "vanity-gateway",
        "nvcf",
        nvcfChart("vanity-gateway"),
        "0.3.0",
        ["invocation-service"],
        (cp) => cp.addons.vanityGateway.enabled,
        vanityGatewayValues,
    ),
    core("nvcf-ui", "nvcf-ui", "helm-nvcf-ui", "1.1.2", [], (cp) => cp.addons.nvcfUi.enabled, nvcfUiValues),
    {
        name: "ingress",
        namespace: (cp) => cp.ingress.gatewayApi.controllerNamespace,
        chart: "nvcf-gateway-routes",
        version: "1.15.0",
        source: "nvcf",
        phase: "core",
        needs: ["notary-service", "api-keys", "nvcf-ui"],
        enabled: (cp) => cp.ingress.gatewayApi.enabled,
        values: gatewayRoutesValues,
    },

    // 03-observability
    {
        name: "state-metrics",
        namespace: fixed("nvcf"),
        chart: nvcfChart("state-metrics"),
        version: "1.0.2",
        source: "nvcf",
        phase: "observability",
        needs: [],
        enabled: (cp) => cp.stateMetrics.enabled,
        values: stateMetricsValues,
    },
    {
        name: "function-autoscaler",
        namespace: fixed("nvcf"),
        chart: "helm-nvcf-function-autoscaler",
        version: "0.2.1",
        source: "nvcf",
        phase: "observability",
        needs: ["state-metrics"],
        enabled: functionAutoscalerEnabled,
        values: functionAutoscalerValues,
    },
];

function core(
    name: string,
    namespace: string,
    chart: string,
    version: string,
    needs: string[],
    enabled: (cp: ControlPlaneConfig) => boolean,
    values: (ctx: ValuesContext) => Values,
): CatalogEntry {
    return { name, namespace: fixed(namespace), chart, version, source: "nvcf", phase: "core", needs, enabled, values };
}

export const RELEASE_NAMES: readonly string[] = CATALOG.map((e) => e.name);
