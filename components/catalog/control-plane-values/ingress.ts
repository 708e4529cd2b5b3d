import type { Values, ValuesContext } from "./context";

/** Release `ingress` (chart nvcf-gateway-routes), key `nvcfGatewayRoutes`. */
export function gatewayRoutesValues(ctx: ValuesContext): Values {
    const { cp } = ctx;
    const gw = cp.ingress.gatewayApi;
    const r = gw.routes;
    const domain = cp.global.domain;
    const orDefault = (hostnames: string[], fallback: string) => (hostnames.length > 0 ? hostnames : [fallback]);
    const annotated = (route: { routeAnnotations: Record<string, string> }) => ({ routeAnnotations: route.routeAnnotations });
    return {
        nvcfGatewayRoutes: {
            domain,
            gateways: {
                shared: { name: gw.gateways.shared.name, namespace: gw.gateways.shared.namespace },
                grpc: { name: gw.gateways.grpc.name, namespace: gw.gateways.grpc.namespace },
                ...(r.nats.enabled ? { nats: { ...gw.gateways.nats } } : {}),
            },
            routes: {
                nvcfApi: {
                    ...annotated(r.nvcfApi),
                    grpc: { enabled: r.nvcfApi.grpc.enabled, hostnames: orDefault(r.nvcfApi.grpc.hostnames, `api-grpc.${domain}`) },
                },
                nvctApi: {
                    ...annotated(r.nvctApi),
                    grpc: { enabled: r.nvctApi.grpc.enabled, hostnames: orDefault(r.nvctApi.grpc.hostnames, `tasks-grpc.${domain}`) },
                },
                apiKeys: annotated(r.apiKeys),
                invocation: annotated(r.invocation),
                llmInvocation: {
                    enabled: cp.addons.llm.enabled,
                    backend: { name: "llm-api-gateway", namespace: "nvcf", port: 8080 },
                    ...annotated(r.llmInvocation),
                },
                vanityGateway: {
                    enabled: cp.addons.vanityGateway.enabled,
                    hostnames: orDefault(r.vanityGateway.hostnames, `vanity.${domain}`),
                    backend: { name: "vanity-gateway", namespace: "nvcf", port: 8080, ...r.vanityGateway.backend },
                    ...annotated(r.vanityGateway),
                },
                nvcfUi: { enabled: cp.addons.nvcfUi.enabled, ...annotated(r.nvcfUi) },
                grpc: annotated(r.grpc),
                grpcWorker: { enabled: r.grpcWorker.enabled, listenerName: r.grpcWorker.listenerName, ...annotated(r.grpcWorker) },
                nats: { enabled: r.nats.enabled, ...annotated(r.nats) },
                ess: { enabled: r.ess.enabled, ...annotated(r.ess) },
            },
            podMonitors: { enabled: cp.global.observability.metrics.enabled },
        },
    };
}
