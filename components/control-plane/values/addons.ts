import { managedIssuer } from "../../../config/derived-facts";
import type { Values, ValuesContext } from "./context";
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

/** Release `vanity-gateway`, key `vanityGateway`: no `all` node-selector fallback (gotcha 6). */
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

/** Release `nvcf-ui`, key `nvcfUi`: full-path image repository (gotcha 6) and the health list. */
export function nvcfUiValues(ctx: ValuesContext): Values {
    const { cp } = ctx;
    const tag = cp.addons.nvcfUi.openbaoMigrations.image.tag || "0.16.2";
    const svc = (name: string, ns: string, port: number, path: string) => `${name}.${ns}.svc.cluster.local:${port}${path}`;
    const when = (on: boolean, ...c: Component[]) => (on ? c : []);
    const components: Component[] = [
        { name: "api", namespace: "nvcf", endpoints: [svc("api", "nvcf", 8080, "/health")] },
        { name: "nvct-api", namespace: "nvcf", endpoints: [svc("nvct-api", "nvcf", 8080, "/health")] },
        { name: "notary-service", namespace: "nvcf", endpoints: ["notary.nvcf.svc.cluster.local:8080/health"] },
        { name: "grpc-proxy", namespace: "nvcf", endpoints: [svc("grpc", "nvcf", 10081, "/health")] },
        ...when(cp.rateLimiter.enabled, {
            name: "ratelimiter",
            namespace: "nvcf",
            endpoints: ["ratelimiter.nvcf.svc.cluster.local:8080/health"],
        }),
        ...when(
            cp.addons.llm.enabled,
            {
                name: "llm-api-gateway",
                namespace: "nvcf",
                endpoints: [svc("llm-api-gateway", "nvcf", 8080, "/healthz"), svc("llm-api-gateway", "nvcf", 8080, "/readyz")],
            },
            {
                name: "llm-request-router",
                namespace: "nvcf",
                endpoints: [
                    "llm-request-router-headless.nvcf.svc.cluster.local:8000/healthz",
                    "llm-request-router-headless.nvcf.svc.cluster.local:8000/readyz",
                ],
            },
        ),
        { name: "reval", namespace: "nvcf", endpoints: ["reval.nvcf.svc.cluster.local:8082/healthz"] },
        { name: "invocation-service", namespace: "nvcf", endpoints: [svc("invocation", "nvcf", 8080, "/health")] },
        ...when(cp.addons.vanityGateway.enabled, {
            name: "vanity-gateway",
            namespace: "nvcf",
            endpoints: [svc("vanity-gateway", "nvcf", 8080, "/health")],
        }),
        { name: "sis", namespace: "sis", endpoints: [svc("api", "sis", 8080, "/health")] },
        { name: "ess-api", namespace: "ess", endpoints: [svc("ess-api", "ess", 8080, "/health")] },
        { name: "api-keys", namespace: "api-keys", endpoints: [svc("api-keys", "api-keys", 8080, "/health")] },
        // 1.1.0: the health list drops the proxy when it is disabled.
        ...when(cp.adminIssuerProxy.enabled, {
            name: "admin-issuer-proxy",
            namespace: "api-keys",
            endpoints: ["admin-token-issuer-proxy.api-keys.svc.cluster.local:8080/healthz"],
        }),
        {
            name: "nats-auth-callout-service",
            namespace: "nats-system",
            endpoints: ["nvcf-nats-auth-callout-service.nats-system.svc.cluster.local:8080/health"],
        },
        ...when(cp.nats.enabled, {
            name: "nats",
            namespace: "nats-system",
            endpoints: ["nats-headless.nats-system.svc.cluster.local:8222/healthz?js-server-only"],
        }),
        ...when(cp.openbao.enabled, {
            name: "openbao-server",
            namespace: "vault-system",
            endpoints: ["openbao-server.vault-system.svc.cluster.local:8200/v1/sys/health?standbyok=true"],
            k8s_workloads: [{ name: "openbao-server-agent-injector", type: "deployment" }],
        }),
        ...when(cp.cassandra.enabled, {
            name: "cassandra",
            namespace: "cassandra-system",
            k8s_workloads: [{ name: "cassandra", type: "statefulset" }],
        }),
        ...when(cp.certManager.enabled, {
            name: "cert-manager",
            namespace: "cert-manager",
            k8s_workloads: ["cert-manager", "cert-manager-cainjector", "cert-manager-webhook"].map((name) => ({
                name,
                type: "deployment",
            })),
        }),
        ...when(cp.ingress.gatewayApi.enabled, {
            name: "envoy-gateway",
            namespace: "envoy-gateway-system",
            k8s_workloads: [{ name: "envoy-gateway", type: "deployment" }],
        }),
    ];
    return {
        nvcfUi: {
            fullnameOverride: "nvcf-ui",
            image: { repository: `${cp.global.image.registry}/${cp.global.image.repository}/nvcf-ui` },
            ...pullSecrets(ctx),
            config: {
                nvcfUrl: "api.nvcf.svc.cluster.local:8080",
                nvctUrl: "nvct-api.nvcf.svc.cluster.local:8080",
                sisUrl: "api.sis.svc.cluster.local:8080",
            },
            openbaoMigrations: { image: { ...image(cp, "nvcf-openbao-migrations"), tag } },
            controlPlane: { components },
            ...placement(cp, "controlplane"),
        },
    };
}
