/**
 * Where the program's values deliberately differ from `helmfile write-values` for the same
 * environment, by release and value path (a path covers everything under it). docs/parity.md,
 * "Deliberate differences from the bundle", lists each with the same reason; the parity test
 * ignores exactly these, and a unit test checks that docs/parity.md names every path.
 */
export interface DeliberateDifference {
    readonly release: string;
    readonly path: string;
    readonly why: string;
}

export const DELIBERATE_DIFFERENCES: readonly DeliberateDifference[] = [
    {
        release: "cassandra",
        path: "cassandra.serviceRolePassword",
        why: "the stack's Cassandra password (generated, or the cassandraPassword secret) is also the service role's, which the chart requires equal to DEFAULT_CASSANDRA_PASSWORD; the bundle leaves the chart's default",
    },
];

/** The top-level key a release's chart reads from the bundle's global.yaml.gotmpl (the bundle gives each chart the whole file). */
export const CHART_KEY: Readonly<Record<string, string>> = {
    nats: "nats",
    "cert-manager": "cert-manager",
    "openbao-server": "openbao",
    cassandra: "cassandra",
    "api-keys": "apikeys",
    sis: "sis",
    api: "api",
    "nvct-api": "nvctApi",
    "invocation-service": "invocation",
    "grpc-proxy": "grpcproxy",
    ratelimiter: "rateLimiter",
    "ess-api": "ess",
    "notary-service": "notary",
    "admin-issuer-proxy": "adminIssuerProxy",
    reval: "reval",
    "nats-auth-callout-service": "natsAuthCalloutService",
    "llm-request-router": "llmRequestRouter",
    "llm-api-gateway": "llmApiGateway",
    "vanity-gateway": "vanityGateway",
    "nvcf-ui": "nvcfUi",
    ingress: "nvcfGatewayRoutes",
    "state-metrics": "stateMetrics",
    "function-autoscaler": "functionautoscaler",
};
