/**
 * The Gateway API release NVIDIA's bundle needs: v1.2.0's experimental channel
 * (kubernetes-sigs/gateway-api v1.2.0, config/crd/experimental), whose CRDs carry their channel
 * and version as annotations. Every row is in docs/contracts.md.
 */

export const GATEWAY_API = {
    group: "gateway.networking.k8s.io",
    /** The oldest release the routes chart's objects exist in (TCPRoute v1alpha2 in the experimental channel). */
    minVersion: "v1.2.0",
    channel: "experimental",
    channelAnnotation: "gateway.networking.k8s.io/channel",
    versionAnnotation: "gateway.networking.k8s.io/bundle-version",
} as const;

/** The CRDs of the kinds the bundle's Gateway objects and routes chart create (TCPRoute is experimental only). */
export const GATEWAY_API_CRDS = ["gatewayclasses", "gateways", "httproutes", "referencegrants", "tcproutes"] as const;

export const GATEWAY_API_INSTALL =
    "kubectl apply --server-side -f https://github.com/kubernetes-sigs/gateway-api/releases/download/v1.2.0/experimental-install.yaml";

/**
 * The admin issuer proxy's route on the shared Gateway, as the bundle sets it
 * (deploy/stacks/self-managed/global.yaml.gotmpl): host `api-keys.<global.domain>`, path
 * `/v1/admin/keys`; NVIDIA's operations check it at the edge on port 443.
 */
export const ADMIN_ROUTE = { path: "/v1/admin/keys", edgePort: 443 } as const;

/** `vX.Y.Z` at or above `minVersion`; a newer release keeps the kinds (an unparseable version is not accepted). */
export function gatewayApiVersionSupported(version: unknown): boolean {
    const parse = (v: string) => /^v(\d+)\.(\d+)\.(\d+)/.exec(v)?.slice(1).map(Number);
    const have = typeof version === "string" ? parse(version) : undefined;
    const min = parse(GATEWAY_API.minVersion)!;
    if (!have) return false;
    for (let i = 0; i < 3; i++) if (have[i] !== min[i]) return have[i] > min[i];
    return true;
}
