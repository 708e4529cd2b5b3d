import { createHash } from "node:crypto";
import type { ControlPlaneConfig } from "../../../config/model/schema";
import { RESERVED_ANNOTATION_PREFIX } from "../../../config/model/schema";
import { functionAutoscalerEnabled, metricsBackendMode } from "../../../config/model/derived-facts";
import type { Values, ValuesContext } from "./context";
import { defined, image, nonEmpty, otlpEndpoint, pdb, placement, pullSecrets, springTracingEnv } from "./common";

/** The parts every service chart gets: name override, pull secrets, image, placement. */
function service(ctx: ValuesContext, fullnameOverride: string, imageName: string): Values {
    return {
        fullnameOverride,
        ...pullSecrets(ctx),
        image: image(ctx.cp, imageName),
        ...placement(ctx.cp, "controlplane"),
    };
}

/** Release `api-keys`, key `apikeys`. */
export function apiKeysValues(ctx: ValuesContext): Values {
    const a = ctx.cp.apikeys;
    return {
        apikeys: { ...service(ctx, "api-keys", "nvcf-api-keys-service"), ...pdb(a), ...nonEmpty("podAnnotations", a.podAnnotations) },
    };
}

/**
 * The NATS worker-auth switch as the api chart reads it. NVCF 1.1.0 documents the behaviour
 * (token mode drops `worker-nkey-seed` from the API's secrets), not the chart value.
 */
export const API_WORKER_AUTH_KEY = "natsWorkerAuth";

/** Release `api`, key `api`. */
export function apiValues(ctx: ValuesContext): Values {
    const { cp } = ctx;
    const a = cp.api;
    const w = cp.global.workerEndpoints;
    const limits = cp.accounts.limits;
    const llm = cp.addons.llm;
    const routerAddress =
        w.llmRequestRouterAddress.trim() || `llm-request-router.nvcf.svc.cluster.local:${llm.requestRouter.service.grpcPort}`;
    return {
        api: {
            fullnameOverride: "nvcf-api",
            ...pullSecrets(ctx),
            image: {
                registry: cp.global.image.registry,
                repository: a.image.repository ?? `${cp.global.image.repository}/${a.image.name}`,
                ...defined({ tag: a.image.tag }),
            },
            ...placement(cp, "controlplane"),
            ...(llm.enabled
                ? { remoteConfig: { configData: { nvcf: { "llm-request-router": { "worker-address": routerAddress } } } } }
                : {}),
            accountBootstrap: {
                image: { ...image(cp, "alpine-k8s"), tag: "1.36.1", pullPolicy: "IfNotPresent" },
                registryCredentials: accountRegistryCredentials(ctx),
                limits: { ...limits },
            },
            env: defined({
                NVCF_NATS_REGION_PLACEMENT_TAG: "dc",
                NVCF_SIDECARS_HOSTNAME: cp.global.image.registry,
                NVCF_SIDECARS_REPOSITORY: cp.global.image.repository,
                NVCF_FQDN: w.nvcfServiceURL,
                NVCF_GLOBAL_FQDN_GRPC: w.nvcfGrpcServiceURL,
                NVCF_NATS_WORKER_URL: w.nvcfNatsServiceURL,
                NVCF_ESS_WORKER_BASE_URL: w.essServiceURL,
                NVCF_ESS_BASE_URL: w.essServiceURL,
                NVCF_ICMS_BASE_URL: a.icmsBaseUrl,
                SPRING_SECURITY_OAUTH2_RESOURCESERVER_JWT_ISSUER_URI: a.jwt.issuerUri,
                SPRING_SECURITY_OAUTH2_RESOURCESERVER_JWT_JWK_SET_URI: a.jwt.jwkSetUri,
                ...springTracingEnv(cp),
            }),
            // Only in token mode: the charts before 1.1.0 know no switch, and nkey is what they do.
            ...(cp.nats.workerAuth === "token" ? { [API_WORKER_AUTH_KEY]: "token" } : {}),
            ...nonEmpty("podAnnotations", a.podAnnotations),
        },
    };
}

/**
 * The secrets file's registry credentials for the default account: a raw docker auth string,
 * base64("$oauthtoken:<key>"), and no MODEL/RESOURCE entry, which the bootstrap drops anyway.
 */
function accountRegistryCredentials(ctx: ValuesContext): Values[] {
    const credential = ctx.secrets.accountCredential;
    if (credential === undefined) return [];
    const { containerRegistryHostname, helmRegistryHostname } = ctx.accountRegistries;
    const entry = (registryHostname: string, artifactType: string, description: string) => ({
        registryHostname,
        secret: { name: "nvcr-containers", value: credential },
        artifactTypes: [artifactType],
        tags: [],
        description,
    });
    return [
        entry(containerRegistryHostname, "CONTAINER", "Container registry"),
        entry(helmRegistryHostname, "HELM", "Helm chart registry"),
    ];
}

/** Release `invocation-service`, key `invocation`. */
export function invocationValues(ctx: ValuesContext): Values {
    const { cp } = ctx;
    const t = cp.global.observability.tracing;
    const i = cp.invocation;
    return {
        invocation: {
            ...service(ctx, "invocation-service", "nvcf-invocation-service"),
            env: defined({
                ...(t.enabled
                    ? {
                          SERVER__TRACING__ENDPOINT_IP: `${t.collectorProtocol}://${t.collectorEndpoint}`,
                          SERVER__TRACING__ENDPOINT_PORT: t.collectorPort,
                      }
                    : { SERVER__ENVFILTER_DIRECTIVE: "otel::tracing=off,otel=off,server=trace,info" }),
                ...(cp.rateLimiter.enabled
                    ? { RATE_LIMIT_ENABLED: "true", RATE_LIMIT_ADDRESS: `http://${ctx.address("ratelimiter")}` }
                    : {}),
                WORKER_STREAM_PROPERTIES__SELF_ADDRESS: cp.global.workerEndpoints.invocationServiceURL,
            }),
            ...(i.tracing.baggageAttributeAllowlist ? { tracing: { baggageAttributeAllowlist: i.tracing.baggageAttributeAllowlist } } : {}),
            ...pdb(i),
            ...nonEmpty("podAnnotations", i.podAnnotations),
        },
    };
}

/** Release `nvct-api`, key `nvctApi`: no node selector, as the bundle gives this chart none. */
export function nvctApiValues(ctx: ValuesContext): Values {
    const { cp } = ctx;
    const n = cp.nvctApi;
    const w = cp.global.workerEndpoints;
    return {
        nvctApi: {
            fullnameOverride: "nvct-api",
            ...pullSecrets(ctx),
            image: image(cp, "nvct-service-oss"),
            env: defined({
                NVCT_SIDECARS_HOSTNAME: cp.global.image.registry,
                NVCT_SIDECARS_REPOSITORY: cp.global.image.repository,
                NVCT_FQDN: w.nvctServiceURL,
                NVCT_GLOBAL_FQDN_GRPC: w.nvctGrpcServiceURL,
                NVCT_ESS_BASE_URL: w.essServiceURL,
                NVCT_ESS_WORKER_BASE_URL: w.essServiceURL,
                NVCT_ICMS_BASE_URL: n.icmsBaseUrl,
                SPRING_SECURITY_OAUTH2_RESOURCESERVER_JWT_ISSUER_URI: n.jwt.issuerUri,
                SPRING_SECURITY_OAUTH2_RESOURCESERVER_JWT_JWK_SET_URI: n.jwt.jwkSetUri,
                ...springTracingEnv(cp, "bool"),
            }),
            ...nonEmpty("podAnnotations", n.podAnnotations),
        },
    };
}

/** Release `grpc-proxy`, key `grpcproxy`. */
export function grpcProxyValues(ctx: ValuesContext): Values {
    const { cp } = ctx;
    const g = cp.grpcproxy;
    const w = cp.global.workerEndpoints;
    const t = cp.global.observability.tracing;
    return {
        grpcproxy: {
            ...service(ctx, "grpc-proxy", "nvcf-grpc-proxy"),
            ...defined({ workerConnectBaseURL: g.workerConnectBaseURL || w.grpcProxyWorkerConnectURL }),
            env: defined({
                ...(t.enabled ? { OTEL_EXPORTER_OTLP_ENDPOINT: otlpEndpoint(cp) } : { TRACING: "none" }),
                NVCF_FQDN_GRPC: g.nvcfGrpcServiceURL || w.nvcfGrpcServiceURL,
                NATS_FQDN: w.nvcfNatsServiceURL,
                ...(cp.rateLimiter.enabled ? { RATE_LIMIT_ENABLED: "true", RATE_LIMIT_ADDR: `http://${ctx.address("ratelimiter")}` } : {}),
            }),
            ...pdb(g),
            ...nonEmpty("podAnnotations", g.podAnnotations),
        },
    };
}

/** Release `ratelimiter`, key `rateLimiter`: bare repository, no `all` fallback, no tolerations: this chart's own shapes in the bundle. */
export function rateLimiterValues(ctx: ValuesContext): Values {
    const { cp } = ctx;
    const sel = cp.global.nodeSelectors;
    return {
        rateLimiter: {
            ...pullSecrets(ctx),
            image: { registry: cp.global.image.registry, repository: cp.global.image.repository },
            ...(sel.enabled && sel.controlplane ? { nodeSelector: { [sel.controlplane.key]: sel.controlplane.value } } : {}),
            replicaCount: cp.rateLimiter.replicaCount,
            ...(cp.global.observability.tracing.enabled ? { env: { OTEL_EXPORTER_OTLP_ENDPOINT: otlpEndpoint(cp) } } : {}),
            ...pdb(cp.rateLimiter),
        },
    };
}

/** Release `ess-api`, key `ess`. */
export function essValues(ctx: ValuesContext): Values {
    const e = ctx.cp.ess;
    return {
        ess: {
            ...service(ctx, "ess-api", "nvcf-ess"),
            env: springTracingEnv(ctx.cp),
            ...pdb(e),
            ...nonEmpty("podAnnotations", e.podAnnotations),
        },
    };
}

/** Release `notary-service`, key `notary`. */
export function notaryValues(ctx: ValuesContext): Values {
    return { notary: { ...service(ctx, "notary-service", "notary-service"), env: springTracingEnv(ctx.cp) } };
}

/** Release `sis`, key `sis`. */
export function sisValues(ctx: ValuesContext): Values {
    const { cp } = ctx;
    const metrics = String(cp.global.observability.metrics.enabled);
    const base = service(ctx, "spot-instance-service", "icms-service-oss");
    return {
        sis: {
            ...base,
            image: { ...image(cp, "icms-service-oss"), ...defined({ tag: cp.sis.image.tag }) },
            lls: {
                enabled: cp.addons.lls.enabled,
                hmacRotation: {
                    image: {
                        ...image(cp, "nvcf-openbao-migrations"),
                        ...defined({ tag: cp.addons.lls.hmacRotation.image.tag }),
                    },
                },
            },
            env: {
                ...springTracingEnv(cp),
                MANAGEMENT_PROMETHEUS_METRICS_EXPORT_ENABLED: metrics,
                MANAGEMENT_METRICS_ENABLE_ALL: metrics,
            },
        },
    };
}

/** Release `admin-issuer-proxy`, key `adminIssuerProxy`. */
export function adminIssuerProxyValues(ctx: ValuesContext): Values {
    const { cp } = ctx;
    const shared = cp.ingress.gatewayApi.gateways.shared;
    return {
        adminIssuerProxy: {
            ...service(ctx, "admin-token-issuer-proxy", "admin-token-issuer-proxy"),
            gateway: {
                enabled: cp.adminIssuerProxy.gateway.enabled,
                namespace: shared.namespace,
                gatewayRef: { name: shared.name },
                hostname: `api-keys.${cp.global.domain}`,
                path: "/v1/admin/keys",
            },
            ...pdb(cp.adminIssuerProxy),
        },
    };
}

/** Release `reval`, key `reval`. */
export function revalValues(ctx: ValuesContext): Values {
    return {
        reval: {
            ...service(ctx, "reval", "reval-server"),
            securityContext: { runAsNonRoot: true, runAsUser: 65532 },
            ...pdb(ctx.cp.reval),
        },
    };
}

/** The restart annotation of the auth callout: it reads its plugin config only at start-up. */
export function workerAuthChecksum(cp: ControlPlaneConfig): string {
    const mode = cp.nats.workerAuth;
    const url = mode === "token" ? cp.nats.authCallout.workerTokenAuth.webhookUrl : "";
    return createHash("sha256").update(`${mode}\n${url}`).digest("hex");
}

/**
 * Release `nats-auth-callout-service`: the bundle's `natsAuthCalloutService` block, and at the
 * top level what this chart reads there: `imagePullSecrets`, `podAnnotations` and
 * `serviceConfig`. The restart annotation is set in token mode only, so leaving token mode
 * removes it and restarts the pods too, and an nkey install gets the bundle's values exactly.
 */
export function natsAuthCalloutValues(ctx: ValuesContext): Values {
    const { cp } = ctx;
    const n = cp.natsAuthCalloutService;
    const restart = cp.nats.workerAuth === "token" ? { [`${RESERVED_ANNOTATION_PREFIX}-checksum`]: workerAuthChecksum(cp) } : {};
    return {
        natsAuthCalloutService: {
            ...pullSecrets(ctx),
            image: image(cp, "nvcf-nats-auth-callout-service"),
        },
        ...pullSecrets(ctx),
        ...nonEmpty("podAnnotations", { ...n.podAnnotations, ...restart }),
        ...(n.serviceConfig.logging ? { serviceConfig: { logging: n.serviceConfig.logging } } : {}),
    };
}

/** Release `state-metrics`, key `stateMetrics` (global hard-codes the chart's own switch off). */
export function stateMetricsValues(ctx: ValuesContext): Values {
    return {
        stateMetrics: {
            enabled: false,
            ...pullSecrets(ctx),
            image: image(ctx.cp, "nvcf-state-metrics-service"),
            ...placement(ctx.cp, "controlplane"),
            serviceMonitor: { enabled: false },
        },
    };
}

/** Release `function-autoscaler`, key `functionautoscaler` (profiles control and all). */
export function functionAutoscalerValues(ctx: ValuesContext): Values {
    const { cp } = ctx;
    if (!functionAutoscalerEnabled(cp)) return {};
    const fa = cp.functionAutoscaler;
    const mb = cp.metricsBackend;
    const promql = metricsBackendMode(cp) === "install" ? `http://${ctx.address("victoria-metrics")}` : mb.promqlEndpoint;
    return {
        functionautoscaler: {
            namespace: "nvcf",
            fullnameOverride: "function-autoscaler",
            ...pullSecrets(ctx),
            image: { ...image(cp, "nvcf-function-autoscaler"), ...defined({ tag: fa.image.tag }) },
            env: defined({
                CONFIG: "/etc/server/config/settings-local.yaml",
                SECRETS_PATH: "/vault/secrets/secrets.json",
                REGION: fa.region,
                CASSANDRA__CONTACT_POINTS: fa.cassandra.contactPoints,
                CASSANDRA__IS_DEVELOPMENT: String(fa.cassandra.isDevelopment),
                NVCF_API__NVCF_API_GRPC_ADDRESS: fa.nvcfApi.grpcAddress,
                NVCF_API__DISABLE_AUTH: String(fa.nvcfApi.disableAuth),
                NVCF_API__DRY_RUN: String(fa.nvcfApi.dryRun),
                TIMESERIES_DB__TIMESERIES_DB_URL: promql,
                TIMESERIES_DB__AUTH_MODE: mb.authentication.mode,
                TIMESERIES_DB__IGNORE_ENV: String(fa.timeseriesDb.ignoreEnv),
                TIMESERIES_DB__AUTHN_URL: mb.authentication.authnEndpoint,
                TIMESERIES_DB__CLIENT_CERTIFICATE_PATH: mb.authentication.clientCertificatePath,
                TIMESERIES_DB__CLIENT_PRIVATE_KEY_PATH: mb.authentication.clientPrivateKeyPath,
            }),
            ...placement(cp, "controlplane"),
            ...pdb(cp.functionautoscaler),
        },
    };
}
