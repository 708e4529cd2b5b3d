import { managedIssuer } from "../../../config/model/derived-facts";
import type { ControlPlaneConfig } from "../../../config/model/schema";
import type { HealthCheck, Values, ValuesContext } from "./context";
import { defined, image, nonEmpty, otlpEndpoint, pdb, placement, pullSecrets } from "./common";

function tracing(ctx: ValuesContext): Values {
    const enabled = ctx.cp.global.observability.tracing.enabled;
    return { tracing: { enabled, ...(enabled ? { endpoint: otlpEndpoint(ctx.cp) } : {}) } };
}

function metrics(m: { enabled: boolean; serviceMonitor?: { enabled: boolean } }): Values {
    return { enabled: m.enabled, serviceMonitor: { enabled: m.serviceMonitor?.enabled ?? m.enabled } };
}

/** Release `llm-api-gateway`, key `llmApiGateway`. */
export function llmApiGatewayValues(ctx: ValuesContext): Values {
    const { cp } = ctx;
    const g = cp.addons.llm.gateway;
    return {
        llmApiGateway: {
            enabled: cp.addons.llm.enabled,
            fullnameOverride: "llm-api-gateway",
            replicaCount: g.replicaCount,
            ...pullSecrets(ctx),
            image: defined({
                registry: g.image.registry ?? cp.global.image.registry,
                repository: g.image.repository ?? `${cp.global.image.repository}/llm-api-gateway`,
                tag: g.image.tag,
                pullPolicy: g.image.pullPolicy,
            }),
            ...placement(cp, "controlplane"),
            ...(g.auth.grpcInsecure ? { config: { nvcfGrpcInsecure: true } } : {}),
            metrics: metrics(g.metrics),
            observability: tracing(ctx),
            ...pdb(cp.llmApiGateway),
        },
    };
}

/** Release `llm-request-router`, key `llmRequestRouter`, with the QUIC certificate block. */
export function llmRequestRouterValues(ctx: ValuesContext): Values {
    const { cp } = ctx;
    const r = cp.addons.llm.requestRouter;
    return {
        llmRequestRouter: {
            enabled: cp.addons.llm.enabled,
            fullnameOverride: "llm-request-router",
            replicaCount: r.replicaCount,
            service: { grpcPort: r.service.grpcPort },
            ...pullSecrets(ctx),
            image: image(cp, "stargate"),
            ...placement(cp, "controlplane"),
            metrics: metrics(r.metrics),
            observability: tracing(ctx),
            ...nonEmpty("loadBalancer", r.loadBalancer),
            ...routerPki(ctx),
            ...pdb(cp.llmRequestRouter),
        },
    };
}

function routerPki(ctx: ValuesContext): Values {
    const { cp } = ctx;
    const pki = cp.addons.llm.pki;
    if (!cp.addons.llm.enabled || !pki.enabled) return {};
    const paths = { mountPath: pki.mountPath, certPath: pki.certPath, keyPath: pki.keyPath, quicInsecure: false };
    if (pki.mode === "existingSecret") {
        return {
            certificate: { enabled: false },
            tls: { mode: "existingSecret", secretName: pki.secretName, ...paths },
        };
    }
    const secretName = pki.secretName ?? "stargate-quic-tls";
    return {
        certificate: {
            enabled: true,
            secretName,
            issuerRef: { kind: pki.issuerKind, name: pki.issuerName },
            dnsNames: pki.dnsNames,
        },
        tls: { secretName, ...paths },
        ...(managedIssuer(cp)
            ? {
                  pki: {
                      enabled: true,
                      namespace: pki.namespace,
                      allowedDomains: pki.allowedDomains,
                      image: {
                          registry: pki.image.registry ?? cp.global.image.registry,
                          repository: pki.image.repository ?? `${cp.global.image.repository}/nvcf-openbao-migrations`,
                          tag: pki.image.tag ?? cp.openbao.migrations.image.tag,
                          pullPolicy: pki.image.pullPolicy,
                      },
                      ...pullSecrets(ctx),
                  },
              }
            : {}),
    };
}

/** Release `vanity-gateway`, key `vanityGateway`: no `all` node-selector fallback, as the bundle gives this chart none. */
export function vanityGatewayValues(ctx: ValuesContext): Values {
    const { cp } = ctx;
    const v = cp.addons.vanityGateway;
    const sel = cp.global.nodeSelectors;
    const tracingEnabled = cp.global.observability.tracing.enabled;
    return {
        vanityGateway: {
            fullnameOverride: "vanity-gateway",
            replicaCount: v.replicaCount,
            ...pullSecrets(ctx),
            image: { ...image(cp, "nvcf-ai-api-gateway-service"), ...defined({ tag: v.image.tag }), pullPolicy: v.image.pullPolicy },
            config: {
                mappingPath: v.config.mappingPath,
                nvcfApiEndpoint: v.config.nvcfApiEndpoint,
                otelExporterOtlpEndpoint: tracingEnabled ? otlpEndpoint(cp) : "",
                secretsPath: v.config.secretsPath,
                privateModelNameRegexPattern: v.config.privateModelNameRegexPattern,
                awsRegion: v.config.awsRegion,
                shadowMaxConcurrent: v.config.shadowMaxConcurrent,
            },
            mappingConfig: v.mappingConfig,
            serviceMonitor: { ...v.serviceMonitor },
            ...nonEmpty("service", v.service),
            ...nonEmpty("serviceAccount", v.serviceAccount),
            ...nonEmpty("podAnnotations", v.podAnnotations),
            ...nonEmpty("podLabels", v.podLabels),
            ...nonEmpty("podSecurityContext", v.podSecurityContext),
            ...nonEmpty("securityContext", v.securityContext),
            ...nonEmpty("resources", v.resources),
            ...(sel.enabled && sel.controlplane
                ? { nodeSelector: { [sel.controlplane.key]: sel.controlplane.value } }
                : nonEmpty("nodeSelector", v.nodeSelector)),
            ...(v.tolerations.length > 0 ? { tolerations: v.tolerations } : {}),
            ...nonEmpty("affinity", v.affinity),
        },
    };
}

type Component = { name: string; namespace: string; endpoints?: string[]; k8s_workloads?: { name: string; type: string }[] };

/** The order of the UI's component list, by release name (the bundle's order). */
export const UI_COMPONENTS = [
    "api",
    "nvct-api",
    "notary-service",
    "grpc-proxy",
    "ratelimiter",
    "llm-api-gateway",
    "llm-request-router",
    "reval",
    "invocation-service",
    "vanity-gateway",
    "sis",
    "ess-api",
    "api-keys",
    "admin-issuer-proxy",
    "nats-auth-callout-service",
    "nats",
    "openbao-server",
    "cassandra",
    "cert-manager",
    "ingress",
] as const;

/**
 * The route whose backend, when overridden, moves a release's UI health check and UI URL (the
 * bundle reads `ingress.gatewayApi.routes.<route>.backend`, a partial override keeping the rest).
 */
const UI_BACKEND_ROUTES: Readonly<Record<string, keyof ControlPlaneConfig["ingress"]["gatewayApi"]["routes"]>> = {
    api: "nvcfApi",
    "nvct-api": "nvctApi",
    "grpc-proxy": "grpc",
    "llm-api-gateway": "llmInvocation",
    "invocation-service": "invocation",
    "vanity-gateway": "vanityGateway",
    sis: "sis",
    "ess-api": "ess",
    "api-keys": "apiKeys",
};

/** A release's UI check with its namespace, its endpoints' Service and port moved to the route's backend override. */
function uiCheck(ctx: ValuesContext, release: string): { namespace: string; check: HealthCheck } | undefined {
    const h = ctx.health.get(release);
    if (!h) return undefined;
    const route = UI_BACKEND_ROUTES[release];
    const over = route ? ctx.cp.ingress.gatewayApi.routes[route]?.backend : undefined;
    const namespace = over?.namespace ?? h.check.namespace ?? h.namespace;
    const endpoints = h.check.endpoints?.map((e) => ({ ...e, service: over?.name ?? e.service, port: over?.port ?? e.port }));
    return { namespace, check: { ...h.check, ...(endpoints ? { endpoints } : {}) } };
}

/** The UI's health list: each enabled release's check from the catalog, so a disabled release drops out. */
function uiComponents(ctx: ValuesContext): Component[] {
    return UI_COMPONENTS.flatMap((release) => {
        const found = uiCheck(ctx, release);
        if (!found) return [];
        const { namespace, check } = found;
        return [
            {
                name: check.component ?? release,
                namespace,
                ...(check.endpoints
                    ? { endpoints: check.endpoints.map((e) => `${e.service}.${namespace}.svc.cluster.local:${e.port}${e.path}`) }
                    : {}),
                ...(check.workloads ? { k8s_workloads: check.workloads.map((w) => ({ ...w })) } : {}),
            },
        ];
    });
}

/** `<service>.<namespace>.svc.cluster.local:<port>` of a release's UI backend (its route's override, else the catalog's). */
function uiAddress(ctx: ValuesContext, release: string): string {
    const found = uiCheck(ctx, release);
    const e = found?.check.endpoints?.[0];
    return found && e ? `${e.service}.${found.namespace}.svc.cluster.local:${e.port}` : ctx.address(release);
}

/** Release `nvcf-ui`, key `nvcfUi`: a full-path image repository (the chart does not join registry and repository) and the health list. */
export function nvcfUiValues(ctx: ValuesContext): Values {
    const { cp } = ctx;
    const tag = cp.addons.nvcfUi.openbaoMigrations.image.tag || "0.16.2";
    return {
        nvcfUi: {
            fullnameOverride: "nvcf-ui",
            image: { repository: `${cp.global.image.registry}/${cp.global.image.repository}/nvcf-ui` },
            ...pullSecrets(ctx),
            config: {
                nvcfUrl: uiAddress(ctx, "api"),
                nvctUrl: uiAddress(ctx, "nvct-api"),
                sisUrl: uiAddress(ctx, "sis"),
            },
            openbaoMigrations: { image: { ...image(cp, "nvcf-openbao-migrations"), tag } },
            controlPlane: { components: uiComponents(ctx) },
            ...placement(cp, "controlplane"),
        },
    };
}
