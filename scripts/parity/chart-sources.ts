/**
 * Where each control-plane release's chart comes from in NVIDIA/nvcf, and at which ref: the
 * chart's release tag for the version the bundle pins; else the nearest newer release tag that
 * has the chart (marked "newer"); else the pinned bundle's commit (docs/parity.md lists these two
 * kinds: the source read may be newer than the chart the bundle installs).
 * `outside`: the chart's source is not in NVIDIA/nvcf; its values are checked only against the
 * bundle's (the parity test).
 */
export type ChartSource =
    { readonly kind: "nvcf"; readonly dir: string; readonly tag?: string } | { readonly kind: "outside"; readonly chart: string };

export const CHART_SOURCES: Readonly<Record<string, ChartSource>> = {
    "prometheus-operator-crds": { kind: "outside", chart: "prometheus-community prometheus-operator-crds 30.0.0" },
    "opentelemetry-operator": { kind: "outside", chart: "open-telemetry opentelemetry-operator 0.114.1" },
    "victoria-metrics": { kind: "outside", chart: "VictoriaMetrics victoria-metrics-single 0.38.0" },
    "otel-collector": { kind: "nvcf", dir: "deploy/stacks/observability/charts/nvcf-otel-collector" },
    "default-monitors": { kind: "nvcf", dir: "deploy/stacks/observability/charts/nvcf-default-monitors" },
    // newer: 0.7.1 has no tag.
    nats: { kind: "nvcf", dir: "deploy/helm/nats", tag: "deploy/helm/nats/v0.7.2" },
    "cert-manager": { kind: "nvcf", dir: "deploy/helm/cert-manager", tag: "deploy/helm/cert-manager/v0.1.0" },
    "openbao-server": { kind: "nvcf", dir: "deploy/helm/openbao/helm", tag: "deploy/helm/openbao/v0.30.25" },
    "nvcf-pki": { kind: "nvcf", dir: "deploy/helm/nvcf-pki", tag: "deploy/helm/nvcf-pki/v0.1.0" },
    cassandra: { kind: "nvcf", dir: "deploy/helm/cassandra/helm", tag: "deploy/helm/cassandra/v0.20.1" },
    "api-keys": { kind: "nvcf", dir: "deploy/helm/api-keys-colocated/api-keys", tag: "deploy/helm/api-keys-colocated/v1.6.0" },
    sis: { kind: "nvcf", dir: "deploy/helm/icms/icms-api" },
    api: { kind: "nvcf", dir: "deploy/helm/cloud-functions/nvcf-api", tag: "deploy/helm/cloud-functions/v1.25.1" },
    "nvct-api": { kind: "nvcf", dir: "deploy/helm/cloud-tasks/nvct-api" },
    "invocation-service": {
        kind: "nvcf",
        dir: "deploy/helm/http-invocation/nvcf-invocation-service",
        tag: "deploy/helm/http-invocation/v1.5.6",
    },
    "grpc-proxy": { kind: "nvcf", dir: "deploy/helm/grpc-proxy/grpc-proxy", tag: "deploy/helm/grpc-proxy/v1.7.1" },
    ratelimiter: { kind: "nvcf", dir: "deploy/helm/ratelimiter/nvcf-ratelimiter", tag: "deploy/helm/ratelimiter/v1.1.0" },
    "ess-api": { kind: "nvcf", dir: "deploy/helm/encrypted-secret-store/ess-api", tag: "deploy/helm/encrypted-secret-store/v1.7.2" },
    // Its v1.4.2 tag predates the chart's move to this directory.
    "notary-service": { kind: "nvcf", dir: "deploy/helm/notary/nvcf-notary-service" },
    // newer: 1.4.3 has no tag.
    "admin-issuer-proxy": {
        kind: "nvcf",
        dir: "deploy/helm/admin-token-issuer-proxy/chart",
        tag: "deploy/helm/admin-token-issuer-proxy/v1.4.4",
    },
    reval: { kind: "nvcf", dir: "deploy/helm/helm-reval" },
    "nats-auth-callout-service": { kind: "nvcf", dir: "deploy/helm/nats-auth-callout" },
    "llm-request-router": {
        kind: "nvcf",
        dir: "deploy/helm/llm-request-router/llm-request-router",
        tag: "deploy/helm/llm-request-router/v1.7.2",
    },
    "llm-api-gateway": { kind: "nvcf", dir: "deploy/helm/llm-api-gateway/llm-api-gateway", tag: "deploy/helm/llm-api-gateway/v1.4.1" },
    "vanity-gateway": {
        kind: "nvcf",
        dir: "deploy/helm/vanity-gateway/helm-nvcf-vanity-gateway",
        tag: "deploy/helm/vanity-gateway/v0.3.0",
    },
    "nvcf-ui": { kind: "nvcf", dir: "src/uis/nvcf-ui/helm" },
    ingress: { kind: "nvcf", dir: "deploy/helm/gateway-routes/chart", tag: "deploy/helm/gateway-routes/v1.15.0" },
    "state-metrics": { kind: "outside", chart: "helm-nvcf-state-metrics 1.0.2 (published by NVIDIA; its source is not in NVIDIA/nvcf)" },
    "function-autoscaler": { kind: "nvcf", dir: "deploy/helm/function-autoscaler", tag: "deploy/helm/function-autoscaler/v0.2.1" },
};

/** One chart's entry in test/fixtures/chart-reads.json. */
export interface ChartReads {
    /** The chart's directory in NVIDIA/nvcf. */
    readonly source: string;
    /** The tag or commit it was read at. */
    readonly ref: string;
    /** Paths read whole: everything under each is read. */
    readonly whole: readonly string[];
    /** Paths read themselves only (tested, or navigated through). */
    readonly exact: readonly string[];
    /** Subcharts whose source is not in NVIDIA/nvcf, by values key. */
    readonly external?: Readonly<Record<string, string>>;
}

export interface ChartReadsFile {
    readonly bundle: { readonly tag: string; readonly commit: string };
    /** Every environment key the bundle's templates and `condition:`s read. */
    readonly environmentKeys: readonly string[];
    readonly charts: Readonly<Record<string, ChartReads>>;
}
