/**
 * What NVCA writes on a GPU cluster, as NVIDIA/nvcf defines it at the commit the bundle pins
 * (fadc0f81): src/compute-plane-services/nvca/pkg/apis/nvcf/v1/nvcfbackend_types.go.
 * Every row is in docs/contracts.md.
 */

/** The NVCA operator's namespace: its ResourceQuota, image mirror and cleanup hard-code it. */
export const NVCA_OPERATOR_NAMESPACE = "nvca-operator";

/** The CRDs the NVCA operator leaves behind (its chart deletes only nvcfbackends; the cluster document deletes all three). */
export const NVCA_CRDS = [
    "nvcfbackends.nvcf.nvidia.io",
    "miniservices.nvca.nvcf.nvidia.io",
    "storagerequests.nvca.nvcf.nvidia.io",
] as const;
/** NVCA's namespaces, as the cluster document deletes them after the uninstall; all made by this stack or the NVCA it installs. */
export const NVCA_NAMESPACES = ["nvca-system", "nvcf-backend", "nvca-modelcache-init", NVCA_OPERATOR_NAMESPACE] as const;

/** The NVCFBackend custom resource (group, version and plural of its CRD). */
export const NVCF_BACKEND = { group: "nvcf.nvidia.io", version: "v1", plural: "nvcfbackends" } as const;

/** `AgentStatus` constants, written to `status.agentStatus` (omitted until the agent reports). */
export const AGENT_STATUS = { unknown: "Unknown", healthy: "Healthy", unhealthy: "Unhealthy" } as const;

/** The API path of one NVCFBackend. */
export function nvcfBackendPath(namespace: string, name: string): string {
    return `/apis/${NVCF_BACKEND.group}/${NVCF_BACKEND.version}/namespaces/${namespace}/${NVCF_BACKEND.plural}/${name}`;
}

/** `nvcf-cli self-hosted` compares the agent status without case; so does the program, and a newer value is not healthy. */
export function agentIsHealthy(status: unknown): boolean {
    return typeof status === "string" && status.toLowerCase() === AGENT_STATUS.healthy.toLowerCase();
}

export type AgentStatus = (typeof AGENT_STATUS)[keyof typeof AGENT_STATUS];
