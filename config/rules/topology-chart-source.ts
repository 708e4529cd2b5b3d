import type { ComputePlaneRule } from "./rule";

/** nvcf-cluster-topology lives only in the bundle (deploy/stacks/nvcf-compute-plane/charts), referenced there by a local path. */
export const topologyChartSource: ComputePlaneRule = (plane, key, settings) => {
    const topology = plane.addons.topologyAwareScheduling;
    const localCharts = Boolean(plane.helmSources?.path ?? settings.controlPlane.global.helm.sources.path);
    if (topology.enabled && !topology.chartsPath && !topology.repository && !localCharts) {
        return [
            {
                key: key("addons.topologyAwareScheduling.chartsPath"),
                message:
                    "the nvcf-cluster-topology chart ships only inside NVIDIA's bundle (deploy/stacks/nvcf-compute-plane/charts), in no chart registry",
                given: "unset",
                allowed:
                    "the directory holding the bundle's charts (or global.helm.sources.path, when it holds them all), or " +
                    "addons.topologyAwareScheduling.repository: a chart repository you pushed it to",
            },
        ];
    }
    return [];
};
