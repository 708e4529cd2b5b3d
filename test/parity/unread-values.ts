/**
 * Values the program writes that the chart's templates at the pinned version do not read
 * (test/fixtures/chart-reads.json), each with why it is written anyway and what it does.
 * docs/parity.md, "Values no chart template reads", lists every one; test/chart-reads.test.ts fails on a
 * written value that is neither read nor here, and on an entry here that is stale.
 *
 * - "1.1.0": a switch of NVCF 1.1.0, whose charts are not published yet; the value name is this
 *   program's choice, and `effect` says what breaks if the 1.1.0 chart reads another name.
 * - "bundle": the bundle writes it too (kept for parity), but the pinned chart ignores it;
 *   `effect` says what that means for the setting.
 */
export interface UnreadValue {
    readonly release: string;
    /** A value path; it covers everything under it. */
    readonly path: string;
    readonly kind: "1.1.0" | "bundle";
    readonly effect: string;
}

const PDB_NONE = "the pinned chart renders no PodDisruptionBudget: the setting has no effect until a newer chart";

export const UNREAD_VALUES: readonly UnreadValue[] = [
    {
        release: "nats",
        path: "nats.workerAuth",
        kind: "1.1.0",
        effect: "if the 1.1.0 nats chart names the switch otherwise, NATS keeps nkey worker auth and token-mode workers cannot connect",
    },
    {
        release: "nats",
        path: "nats.authCallout.workerTokenAuth",
        kind: "1.1.0",
        effect: "if the 1.1.0 nats chart names it otherwise, the auth callout has no webhook URL in token mode and refuses workers",
    },
    {
        release: "nats",
        path: "nats.podAnnotations",
        kind: "1.1.0",
        effect: "if the 1.1.0 nats chart reads pod annotations elsewhere, the NATS pods do not get them (and do not restart on a change)",
    },
    {
        release: "api",
        path: "api.natsWorkerAuth",
        kind: "1.1.0",
        effect: "if the 1.1.0 api chart names the switch otherwise, the API keeps worker-nkey-seed in its secrets and hands workers nkey credentials",
    },
    {
        release: "nats-auth-callout-service",
        path: "natsAuthCalloutService",
        kind: "bundle",
        effect: "the chart reads its values at the top level: its image and pull secrets come from the chart's defaults and the top-level imagePullSecrets",
    },
    {
        release: "cassandra",
        path: "cassandra.global.security",
        kind: "bundle",
        effect: "a Bitnami subchart setting; the chart has no such subchart",
    },
    {
        release: "cassandra",
        path: "cassandra.initialization",
        kind: "bundle",
        effect: "the chart's initialization job runs in the migrations image (cassandra.migrations.image)",
    },
    { release: "ess-api", path: "ess.podDisruptionBudget", kind: "bundle", effect: PDB_NONE },
    { release: "ratelimiter", path: "rateLimiter.podDisruptionBudget", kind: "bundle", effect: PDB_NONE },
    { release: "invocation-service", path: "invocation.podDisruptionBudget", kind: "bundle", effect: PDB_NONE },
    { release: "function-autoscaler", path: "functionautoscaler.podDisruptionBudget", kind: "bundle", effect: PDB_NONE },
    { release: "admin-issuer-proxy", path: "adminIssuerProxy.podDisruptionBudget", kind: "bundle", effect: PDB_NONE },
    {
        release: "invocation-service",
        path: "invocation.tracing.baggageAttributeAllowlist",
        kind: "bundle",
        effect: "invocation-service 1.5.6 has no baggage allowlist: the setting has no effect",
    },
    {
        release: "ess-api",
        path: "ess.tolerations",
        kind: "bundle",
        effect: "ess-api 1.7.2 takes no tolerations: global.tolerations do not reach it",
    },
    {
        release: "api-keys",
        path: "apikeys.nodeSelector",
        kind: "bundle",
        effect: "api-keys 1.6.0 takes no node selector: global.nodeSelectors do not reach it",
    },
    {
        release: "api-keys",
        path: "apikeys.tolerations",
        kind: "bundle",
        effect: "api-keys 1.6.0 takes no tolerations: global.tolerations do not reach it",
    },
    {
        release: "grpc-proxy",
        path: "grpcproxy.nodeSelector",
        kind: "bundle",
        effect: "grpc-proxy 1.7.1 reads grpcproxy.deployment.nodeSelector: global.nodeSelectors do not reach it",
    },
    {
        release: "grpc-proxy",
        path: "grpcproxy.tolerations",
        kind: "bundle",
        effect: "grpc-proxy 1.7.1 reads grpcproxy.deployment.tolerations: global.tolerations do not reach it",
    },
    {
        release: "llm-request-router",
        path: "llmRequestRouter.enabled",
        kind: "bundle",
        effect: "the release itself is what addons.llm.enabled turns on and off",
    },
    {
        release: "llm-api-gateway",
        path: "llmApiGateway.enabled",
        kind: "bundle",
        effect: "the release itself is what addons.llm.enabled turns on and off",
    },
    {
        release: "llm-request-router",
        path: "llmRequestRouter.loadBalancer",
        kind: "bundle",
        effect: "llm-request-router 1.7.2 has no load balancer Service: addons.llm.requestRouter.loadBalancer has no effect",
    },
    {
        release: "llm-request-router",
        path: "llmRequestRouter.tls.mode",
        kind: "bundle",
        effect: "llm-request-router 1.7.2 mounts tls.secretName whatever the mode: existingSecret works through the secret name alone",
    },
    {
        release: "default-monitors",
        path: "computePlane.namespaceSelector",
        kind: "bundle",
        effect: "the observability base.yaml sets the DCGM monitor's namespaceSelector one level too high: the chart reads computePlane.dcgm.namespaceSelector and uses its own default",
    },
    {
        release: "default-monitors",
        path: "computePlane.selector",
        kind: "bundle",
        effect: "the observability base.yaml sets the DCGM monitor's selector one level too high: the chart reads computePlane.dcgm.selector and uses its own default",
    },
];
