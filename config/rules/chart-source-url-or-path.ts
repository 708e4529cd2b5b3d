import type { ControlPlaneRule } from "./rule";

/** The charts come from a chart repository's URL or a local directory, not both. */
export const chartSourceUrlOrPath: ControlPlaneRule = (cp) => {
    const sources = cp.global.helm.sources;
    if (sources.url && sources.path) {
        return [
            {
                path: "global.helm.sources.path",
                message: "set either global.helm.sources.url (an https chart repository) or .path (a local directory), not both",
                given: sources.path,
            },
        ];
    }
    return [];
};
