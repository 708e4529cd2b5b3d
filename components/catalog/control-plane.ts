import type { ControlPlaneConfig } from "../../config/schema";
import {
    componentMode,
    functionAutoscalerEnabled,
    managedIssuer,
    metricsBackendMode,
    type ObservabilityComponent,
} from "../../config/derived-facts";
import type { ValuesContext } from "./control-plane-values/context";
import type { ChartSource, Need, ReleaseEntry, VersionSource } from "../release/entry";
import { BUNDLE_BASE } from "../../config/bundle-base";
import type { Plain } from "../../config/deep-merge";
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
import { OPENBAO, OPENBAO_API } from "../contracts/openbao";

/** The bundle's helmfile.d files, in the order Helmfile runs them. */
export const PHASES = ["observability-infrastructure", "dependencies", "core", "observability"] as const;
export type Phase = (typeof PHASES)[number];

export { OPENBAO } from "../contracts/openbao";

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

/** An edge copied from NVIDIA's helmfile `needs:`, where its files give no reason of their own. */
const HELMFILE = "NVIDIA's helmfile lists it in needs";
const need = (release: string, why: string = HELMFILE): Need => ({ release, why });

export const CATALOG: readonly CatalogEntry[] = [
    // 00-observability-infrastructure: the nested observability stack; the default profile (control) installs it before the dependencies.
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
        needs: [need("prometheus-operator-crds")],
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
        needs: [],
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
        needs: [need("opentelemetry-operator"), need("prometheus-operator-crds"), need("victoria-metrics")],
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
        needs: [need("prometheus-operator-crds")],
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
        needs: [need("nats")],
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
        needs: [
            need("openbao-server", "its issuer authenticates to OpenBao (the helmfile's audience is openbao-server's address)"),
            need("cert-manager", "its issuers are cert-manager objects"),
        ],
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
        needs: [],
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
        needs: [],
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
        needs: [need("ess-api", "not to start: the api chart's account-bootstrap script needs it (NVIDIA's helmfile)")],
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
        needs: [],
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
        needs: [need("api")],
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
        needs: [need("api")],
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
        needs: [need("api")],
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
        needs: [],
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
        needs: [],
        enabled: always,
        values: notaryValues,
        health: { endpoints: [{ service: "notary", port: 8080, path: "/health" }] },
    },
    // The bundle deliberately gives it no needs ("Finding #22"), so a flaky sibling never skips it.
    {
        name: "admin-issuer-proxy",
        namespace: fixed("api-keys"),
        chart: "helm-admin-token-issuer-proxy",
        version: BUNDLE,
        source: NVCF,
        phase: "core",
        needs: [],
        enabled: (cp) => cp.adminIssuerProxy.enabled,
        values: adminIssuerProxyValues,
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
        needs: [],
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
        needs: [need("api")],
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
        needs: [need("llm-request-router")],
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
        needs: [need("invocation-service")],
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
        needs: [],
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
        needs: [need("notary-service"), need("api-keys"), need("nvcf-ui")],
        enabled: (cp) => cp.ingress.gatewayApi.enabled,
        values: gatewayRoutesValues,
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
        needs: [],
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
        needs: [need("state-metrics")],
        enabled: functionAutoscalerEnabled,
        values: functionAutoscalerValues,
    },
];

export const RELEASE_NAMES: readonly string[] = CATALOG.map((e) => e.name);

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
