import type { ChecksConfig } from "../../config/model/checks-schema";
import type { ControlPlaneConfig } from "../../config/model/schema";
import type { Settings } from "../../config/settings";
import type { CatalogEntry } from "../catalog/control-plane";
import { adminIssuerRouteOn, routeHostnames } from "../../config/model/derived-facts";
import { ADMIN_ROUTE } from "../../lib/contracts/gateway-api";
import type { GatewaySpec, HealthSpec, PreflightSpec } from "../../lib/health/checks";

/** The account bootstrap hook of release `api` (nvcf-api chart). */
export const ACCOUNT_BOOTSTRAP = { release: "api", job: "nvcf-api-account-bootstrap" } as const;

/** The listener ports the routes chart's routes attach to (the bundle's Gateway prerequisite). */
export const LISTENER_PORTS = { http: 80, tcp: 10081, nats: 4222, workerTcp: 10086 } as const;

/**
 * The Gateways the routes attach to and the listeners each must have: `http` on the shared
 * Gateway, `tcp` (the gRPC TCPRoute) and the worker listener (when on) on the gRPC Gateway, the
 * NATS listener (when the NATS route is on) on the NATS Gateway. Two roles on one Gateway merge.
 */
export function requiredGateways(cp: ControlPlaneConfig): GatewaySpec[] {
    const gw = cp.ingress.gatewayApi;
    const wanted: { namespace: string; name: string; listener: { name: string; port: number } }[] = [
        { ...gw.gateways.shared, listener: { name: "http", port: LISTENER_PORTS.http } },
        { ...gw.gateways.grpc, listener: { name: "tcp", port: LISTENER_PORTS.tcp } },
    ];
    if (gw.routes.grpcWorker.enabled) {
        wanted.push({ ...gw.gateways.grpc, listener: { name: gw.routes.grpcWorker.listenerName, port: LISTENER_PORTS.workerTcp } });
    }
    if (gw.routes.nats.enabled) {
        wanted.push({
            name: gw.gateways.nats.name,
            namespace: gw.gateways.nats.namespace,
            listener: { name: gw.gateways.nats.listenerName, port: LISTENER_PORTS.nats },
        });
    }
    const byRef = new Map<string, { namespace: string; name: string; listeners: { name: string; port: number }[] }>();
    for (const w of wanted.filter((w) => w.name && w.namespace)) {
        const key = `${w.namespace}/${w.name}`;
        const entry = byRef.get(key) ?? { namespace: w.namespace, name: w.name, listeners: [] };
        if (!entry.listeners.some((l) => l.name === w.listener.name)) entry.listeners.push(w.listener);
        byRef.set(key, entry);
    }
    return [...byRef.values()];
}

/** The control plane's preflight, or undefined when it is off. */
export function controlPlanePreflight(
    cp: ControlPlaneConfig,
    checks: ChecksConfig,
    enabled: readonly CatalogEntry[],
): PreflightSpec | undefined {
    const p = checks.preflight;
    if (!p.enabled) return undefined;
    // Cassandra, OpenBao and NATS JetStream claim volumes of global.storageClass (or the default).
    const claimsVolumes = enabled.some((e) => ["cassandra", "openbao-server", "nats"].includes(e.name));
    return {
        kubernetesVersion: p.kubernetesVersion,
        clusterAdmin: p.clusterAdmin,
        // With ingress.gatewayApi.install the stack creates the CRDs and Gateways itself, after this check.
        ...(p.gatewayApi && cp.ingress.gatewayApi.enabled && !cp.ingress.gatewayApi.install.enabled
            ? { gatewayApi: { gateways: requiredGateways(cp) } }
            : {}),
        ...(p.storageClass && claimsVolumes ? { storageClass: { name: cp.global.storageClass } } : {}),
    };
}

/** A GPU cluster's preflight, or undefined when it is off. */
export function computePlanePreflight(checks: ChecksConfig): PreflightSpec | undefined {
    const p = checks.preflight;
    if (!p.enabled) return undefined;
    return { kubernetesVersion: p.kubernetesVersion, clusterAdmin: p.clusterAdmin, gpu: p.gpu };
}

/** The control plane's health gate, or undefined when it is off. */
export function controlPlaneHealth(
    cp: ControlPlaneConfig,
    checks: ChecksConfig,
    enabled: readonly CatalogEntry[],
    openbao:
        { readonly namespace: string; readonly pod: string; readonly port: number; readonly access: Settings["openbaoAccess"] } | undefined,
): HealthSpec | undefined {
    const h = checks.healthGate;
    if (!h.enabled) return undefined;
    const api = enabled.find((e) => e.name === ACCOUNT_BOOTSTRAP.release);
    const gw = cp.ingress.gatewayApi;
    const routeNamespaces = [...new Set([gw.gateways.shared.namespace, gw.gateways.grpc.namespace].filter((n) => n))];
    const spec: HealthSpec = {
        ...(h.accountBootstrap && api
            ? { accountBootstrap: { namespace: api.namespace(cp), job: ACCOUNT_BOOTSTRAP.job, release: ACCOUNT_BOOTSTRAP.release } }
            : {}),
        ...(h.openbao && openbao
            ? {
                  openbao: {
                      namespace: openbao.namespace,
                      pod: openbao.pod,
                      port: openbao.port,
                      scheme: openbao.access.scheme,
                      ...(openbao.access.address ? { address: openbao.access.address } : {}),
                      ...(openbao.access.insecureSkipVerify ? { insecureSkipVerify: true } : {}),
                      ...(openbao.access.caCert ? { caCert: openbao.access.caCert } : {}),
                  },
              }
            : {}),
        ...(h.routes && gw.enabled && routeNamespaces.length > 0 ? { routes: { namespaces: routeNamespaces } } : {}),
        ...(h.workloads ? { workloads: { namespaces: [...new Set(enabled.map((e) => e.namespace(cp)))].filter((n) => n) } } : {}),
        // Turning the proxy or its route off removes nothing already served: NVIDIA's operations check the edge.
        ...(h.adminRouteAtEdge && gw.enabled && !adminIssuerRouteOn(cp) && gw.gateways.shared.name
            ? {
                  adminRouteAtEdge: {
                      host: routeHostnames(cp).apiKeys,
                      path: ADMIN_ROUTE.path,
                      port: ADMIN_ROUTE.edgePort,
                      gateway: { namespace: gw.gateways.shared.namespace, name: gw.gateways.shared.name },
                      ...(h.edgeAddress ? { address: h.edgeAddress } : {}),
                      ...(h.edgeCaCert ? { ca: h.edgeCaCert } : {}),
                      timeoutSeconds: 10,
                  },
              }
            : {}),
        ...(h.sharedNkey && cp.nats.enabled && cp.nats.workerAuth === "token" ? { sharedNkey: true } : {}),
    };
    return Object.keys(spec).length > 0 ? spec : undefined;
}

/** A compute plane's health gate, or undefined when it is off. */
export function computePlaneHealth(
    checks: ChecksConfig,
    clusterName: string,
    operator: { readonly namespace: string; readonly agentNamespace: string },
    releaseNamespaces: readonly string[],
): HealthSpec | undefined {
    const h = checks.healthGate;
    if (!h.enabled || !h.computePlanes) return undefined;
    return {
        nvcfBackend: { name: clusterName, namespace: operator.namespace, agentNamespace: operator.agentNamespace },
        ...(h.workloads ? { workloads: { namespaces: [...new Set(releaseNamespaces)] } } : {}),
    };
}
