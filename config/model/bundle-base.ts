import { deepMerge, type Plain } from "./deep-merge";

/**
 * The defaults an environment file is merged over, as data: the self-managed bundle's
 * `environments/base.yaml`, plus the observability bundle's `environments/base.yaml` for the keys
 * the self-managed bundle hands to it (its 00 file passes `global`, `observability`,
 * `metricsBackend`, `prometheusOperatorCrds`, `opentelemetryOperator`, `collector`,
 * `victoriaMetrics` and `defaultMonitors` over them). The schema (config/schema.ts) only checks
 * types; every default of a key these files carry lives here and nowhere else.
 */

const pdbOff = (bound: { maxUnavailable: number } | { minAvailable: number }) => ({ enabled: false, ...bound });
const servicePdb = () => ({ podDisruptionBudget: pdbOff({ maxUnavailable: 1 }) });
const routeAnnotations = () => ({ routeAnnotations: {} });
const gateway = () => ({ name: "", namespace: "" });
const PROMETHEUS_OPERATOR_CRDS = [
    "alertmanagerconfigs",
    "alertmanagers",
    "podmonitors",
    "probes",
    "prometheusagents",
    "prometheuses",
    "prometheusrules",
    "scrapeconfigs",
    "servicemonitors",
    "thanosrulers",
];
const OBSERVABILITY_TARGET = { "nvcf.nvidia.com/observability-target": "true" };
const COLLECTOR_IMAGE = "ghcr.io/open-telemetry/opentelemetry-collector-releases/opentelemetry-collector-contrib";

/** deploy/stacks/self-managed/environments/base.yaml. */
const SELF_MANAGED_BASE: Plain = {
    global: {
        domain: "localhost",
        helm: { sources: { registry: "nvcr.io", repository: "YOUR_ORG/YOUR_TEAM" } },
        imagePullSecrets: [],
        image: { registry: "nvcr.io", repository: "YOUR_ORG/YOUR_TEAM" },
        workerEndpoints: {
            nvcfServiceURL: "",
            nvcfGrpcServiceURL: "",
            nvcfNatsServiceURL: "",
            essServiceURL: "",
            nvctServiceURL: "",
            nvctGrpcServiceURL: "",
            invocationServiceURL: "",
            grpcProxyWorkerConnectURL: "",
            llmRequestRouterAddress: "",
        },
        nodeSelectors: {
            enabled: false,
            vault: { key: "nvcf.nvidia.com/workload", value: "vault" },
            cassandra: { key: "nvcf.nvidia.com/workload", value: "cassandra" },
            controlplane: { key: "nvcf.nvidia.com/workload", value: "control-plane" },
        },
        tolerations: { enabled: false, all: [] },
        storageClass: "",
        storageSize: "10Gi",
        observability: {
            tracing: { enabled: false, collectorEndpoint: "", collectorPort: 4317, collectorProtocol: "http" },
            metrics: { enabled: false },
        },
    },
    observability: { profile: "control" },
    functionAutoscaler: {
        region: "local",
        cassandra: { contactPoints: "cassandra.cassandra-system.svc.cluster.local", isDevelopment: false },
        nvcfApi: { grpcAddress: "http://api.nvcf.svc.cluster.local:9090", disableAuth: false, dryRun: false },
        timeseriesDb: { ignoreEnv: true },
    },
    accounts: { limits: { maxFunctions: 10, maxTasks: 10, maxTelemetries: 10, maxRegistryCreds: 10 } },
    nats: { enabled: true, podDisruptionBudget: { enabled: false, merge: { spec: { minAvailable: 2 } } } },
    cassandra: { enabled: true, resourcesPreset: "xlarge", podDisruptionBudget: pdbOff({ minAvailable: 2 }) },
    certManager: { enabled: true },
    openbao: {
        enabled: true,
        migrations: { issuerDiscovery: { enabled: false } },
        injector: { replicas: 2, webhook: { failurePolicy: "Ignore" }, podDisruptionBudget: { minAvailable: 1 } },
        server: { ha: { disruptionBudget: pdbOff({ maxUnavailable: 1 }) } },
    },
    addons: {
        lls: { enabled: false },
        llm: { enabled: false, pki: { enabled: false, mode: "certManager", allowedDomains: "", dnsNames: [] } },
        vanityGateway: {
            enabled: false,
            replicaCount: 2,
            image: { tag: "", pullPolicy: "IfNotPresent" },
            config: {
                mappingPath: "/etc/vanity-gateway/config/config.yaml",
                nvcfApiEndpoint: "http://invocation.nvcf.svc.cluster.local:8080",
                secretsPath: "",
                privateModelNameRegexPattern: "",
                awsRegion: "",
                shadowMaxConcurrent: 256,
            },
            mappingConfig: { v2config: { openai: {}, vanity: {} } },
            serviceMonitor: { enabled: false, interval: "60s", labels: {} },
            service: {},
            serviceAccount: {},
            podAnnotations: {},
            podLabels: {},
            podSecurityContext: {},
            securityContext: {},
            resources: {},
            nodeSelector: {},
            tolerations: [],
            affinity: {},
        },
        nvcfUi: { enabled: false },
    },
    stateMetrics: { enabled: true, serviceMonitor: { enabled: false } },
    rateLimiter: { enabled: true, replicaCount: 1, ...servicePdb() },
    apikeys: servicePdb(),
    ess: servicePdb(),
    invocation: { env: { NATS_PROPERTIES__REGION: "local" }, ...servicePdb() },
    adminIssuerProxy: servicePdb(),
    functionautoscaler: servicePdb(),
    reval: servicePdb(),
    llmApiGateway: servicePdb(),
    llmRequestRouter: servicePdb(),
    ingress: {
        gatewayApi: {
            enabled: true,
            controllerNamespace: "",
            routes: {
                nvcfApi: { ...routeAnnotations(), grpc: { enabled: false, hostnames: [] } },
                nvctApi: { ...routeAnnotations(), grpc: { enabled: false, hostnames: [] } },
                apiKeys: routeAnnotations(),
                invocation: routeAnnotations(),
                llmInvocation: routeAnnotations(),
                vanityGateway: { hostnames: [], ...routeAnnotations() },
                nvcfUi: routeAnnotations(),
                grpc: routeAnnotations(),
                grpcWorker: { enabled: false, listenerName: "worker-tcp", ...routeAnnotations() },
                nats: { enabled: false, ...routeAnnotations() },
                ess: { enabled: false, ...routeAnnotations() },
            },
            gateways: { shared: gateway(), grpc: gateway(), nats: { ...gateway(), listenerName: "nats" } },
        },
    },
    grpcproxy: { ...servicePdb(), nvcfGrpcServiceURL: "", workerConnectBaseURL: "" },
};

/** deploy/stacks/observability/environments/base.yaml: the keys the self-managed bundle passes over it. */
const OBSERVABILITY_BASE: Plain = {
    observability: { namespace: "monitoring" },
    metricsBackend: {
        type: "victoriaMetrics",
        remoteWriteEndpoint: "",
        promqlEndpoint: "",
        authentication: { mode: "none", authnEndpoint: "", clientCertificatePath: "", clientPrivateKeyPath: "" },
    },
    prometheusOperatorCrds: {
        version: "30.0.0",
        values: {
            crds: Object.fromEntries(
                PROMETHEUS_OPERATOR_CRDS.map((crd) => [crd, { enabled: crd === "podmonitors" || crd === "servicemonitors" }]),
            ),
        },
    },
    opentelemetryOperator: {
        version: "0.114.1",
        admissionWebhooks: { certManager: { enabled: false }, autoGenerateCert: { recreate: false } },
        manager: { collectorImage: { repository: COLLECTOR_IMAGE, tag: "0.129.1" } },
    },
    collector: {
        collectorName: "nvcf-observability",
        image: `${COLLECTOR_IMAGE}:0.129.1`,
        targetAllocator: {
            allocationStrategy: "consistent-hashing",
            prometheusCR: {
                enabled: true,
                serviceMonitorSelector: { matchLabels: OBSERVABILITY_TARGET },
                podMonitorSelector: { matchLabels: OBSERVABILITY_TARGET },
                serviceMonitorNamespaceSelector: {},
                podMonitorNamespaceSelector: {},
            },
        },
        config: {
            receivers: { prometheus: { config: { scrape_configs: [] } } },
            processors: { batch: {} },
            exporters: { prometheusremotewrite: { endpoint: "" } },
            service: { pipelines: { metrics: { receivers: ["prometheus"], processors: ["batch"], exporters: ["prometheusremotewrite"] } } },
        },
    },
    victoriaMetrics: {
        version: "0.38.0",
        server: {
            retentionPeriod: "1",
            persistentVolume: { enabled: true, size: "16Gi", storageClass: "" },
            resources: { requests: { cpu: "100m", memory: "256Mi" }, limits: { cpu: "1", memory: "1Gi" } },
        },
        serviceMonitor: { enabled: true },
    },
    defaultMonitors: {
        commonLabels: OBSERVABILITY_TARGET,
        controlPlane: {
            interval: "30s",
            path: "/metrics",
            port: "metrics",
            namespaces: ["nvcf"],
            services: [
                {
                    name: "state-metrics",
                    enabled: true,
                    selector: { "app.kubernetes.io/instance": "state-metrics", "app.kubernetes.io/name": "helm-nvcf-state-metrics" },
                },
                ...["invocation-service", "grpc-proxy", "llm-api-gateway"].map((name) => ({
                    name,
                    enabled: true,
                    selector: { "app.kubernetes.io/instance": name },
                })),
            ],
        },
        computePlane: {
            interval: "30s",
            path: "/metrics",
            services: [
                {
                    name: "nvca",
                    enabled: true,
                    namespaces: ["nvca-system"],
                    port: "nvca",
                    selector: { "app.kubernetes.io/name": "nvca" },
                    labels: {},
                },
            ],
            dcgm: { enabled: true },
            namespaceSelector: { any: true },
            selector: {
                matchLabels: { "nvca.nvcf.nvidia.io/dcgm-metrics-present": "true" },
                interval: "30s",
                path: "/metrics",
                port: "dcgm-metrics",
                labels: {},
            },
            worker: {
                enabled: true,
                namespace: "",
                namespaceSelector: { any: true },
                selector: { matchExpressions: [{ key: "icms-request-id", operator: "Exists" }] },
                interval: "30s",
                path: "/metrics",
                port: "metrics",
                labels: {},
            },
        },
    },
};

/** What an environment is merged over: both files' defaults (they never set the same key differently). */
export const BUNDLE_BASE: Plain = deepMerge(OBSERVABILITY_BASE, SELF_MANAGED_BASE);

/**
 * An environment as Helmfile sees it: the user's file deep-merged over `BUNDLE_BASE` (maps merge
 * at every level, lists and scalars replace). Anything but a map (an unset `controlPlane`
 * included) is returned unchanged, for the schema to reject.
 */
export function overBundleBase(environment: unknown): unknown {
    if (typeof environment !== "object" || environment === null || Array.isArray(environment)) return environment;
    return structuredClone(deepMerge(BUNDLE_BASE, environment as Plain));
}
