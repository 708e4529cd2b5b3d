import * as path from "node:path";
import { deepMerge, type Plain } from "../../config/model/deep-merge";

/** The fixture charts: the suite's chart mirror (`global.helm.sources.path`). */
export const CHARTS = path.join(__dirname, "charts");
/** The Envoy Gateway controller's namespace. */
export const CONTROLLER_NS = "envoy-gateway-system";
/** The Gateway's namespace. */
export const GATEWAY_NS = "envoy-gateway";
/** The e2e stacks' GPU cluster. */
export const GPU = "gpu-e2e";
/** The version of the Envoy Gateway and Kyverno fixture charts, pinned by the e2e stacks. */
export const FIXTURE_VERSION = "0.0.0-e2e";

/**
 * An end-to-end stack's config, as a user's stack file holds it: no default Kubernetes provider,
 * images named as the dev stack names them, charts from `charts`, the Gateway's namespaces.
 * `controlPlane` is merged over that; `other` holds the other project keys, by their short names.
 */
export function e2eStackConfig(opts: { cluster: Plain; charts?: string; controlPlane?: Plain; other?: Plain }): Plain {
    const charts = opts.charts ?? CHARTS;
    const controlPlane: Plain = {
        global: {
            domain: "nvcf.test",
            image: { registry: "nvcr.io", repository: "nvidia/nvcf" },
            helm: { sources: { registry: "nvcr.io", repository: "nvidia/nvcf", path: charts } },
        },
        ingress: {
            gatewayApi: {
                controllerNamespace: CONTROLLER_NS,
                gateways: {
                    shared: { name: "nvcf-gateway", namespace: GATEWAY_NS },
                    grpc: { name: "nvcf-gateway", namespace: GATEWAY_NS },
                },
            },
        },
    };
    return {
        "pulumi:disable-default-providers": ["kubernetes"],
        "nvcf-self-managed:cluster": opts.cluster,
        "nvcf-self-managed:controlPlane": deepMerge(controlPlane, opts.controlPlane),
        // The fixture charts run no nvcf-api and these worlds no OpenBao members for the credential's
        // write: the rotation's own test (real-openbao-nats.test.ts) runs it against the real OpenBao.
        "nvcf-self-managed:credentialRotation": { enabled: false },
        ...Object.fromEntries(Object.entries(opts.other ?? {}).map(([key, value]) => [`nvcf-self-managed:${key}`, value])),
    };
}

/** The GPU cluster of the e2e stacks: the control plane's own cluster, registered with the fake ICMS. */
export function gpuPlane(icmsUrl: string, charts: string = CHARTS, extra: Plain = {}): Plain {
    return {
        clusterName: GPU,
        cluster: { sameAsControlPlane: true, skipAwait: true },
        registration: { icmsURL: icmsUrl, apiKeysURL: icmsUrl, timeoutSeconds: 10, retries: 1 },
        smbCsiDriver: { source: path.join(charts, "csi-driver-smb") },
        ...extra,
    };
}

/**
 * The leanest stack with Helm releases: the control plane's ten releases that are always on,
 * with every optional one off (observability, NATS, Cassandra, OpenBao, cert-manager, the rate
 * limiter, the admin issuer proxy, the Gateway's release, state metrics), no compute plane, no
 * preflight, health gate or smoke test (no controllers run here).
 */
export const LEAN_STACK_CONFIG = e2eStackConfig({
    cluster: { clusterIdentifier: "e2e", skipAwait: true },
    controlPlane: {
        observability: { profile: "disabled" },
        nats: { enabled: false },
        cassandra: { enabled: false },
        openbao: { enabled: false },
        certManager: { enabled: false },
        rateLimiter: { enabled: false },
        stateMetrics: { enabled: false },
        adminIssuerProxy: { enabled: false },
        ingress: { gatewayApi: { enabled: false } },
    },
    other: { checks: { preflight: { enabled: false }, healthGate: { enabled: false }, smoke: { helmTests: false } } },
});
