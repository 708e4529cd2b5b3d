import type { ResourceValidationPolicy } from "@pulumi/policy";
import { annotationMaps } from "../lib/annotations";
import { label, releaseFromArgs } from "../lib/release";

/** Prefixes of the annotations the charts write themselves (config checksums, the OpenBao agent injector's). */
export const CHART_MANAGED_PREFIXES = ["checksum/", "vault.hashicorp.com/"] as const;

export const podAnnotationsNoChartManagedKeys: ResourceValidationPolicy = {
    name: "pod-annotations-no-chart-managed-keys",
    description:
        "No pod annotation uses a key the charts manage themselves (`checksum/*` such as `checksum/config`, " +
        "`vault.hashicorp.com/*`): NVCF 1.1.0 forbids them, and the charts that concatenate annotations " +
        "would render a duplicate YAML key.",
    enforcementLevel: "mandatory",
    remediationSteps: "Remove the annotation; to restart pods, change a key of your own instead.",
    validateResource: (args, reportViolation) => {
        const release = releaseFromArgs(args);
        if (!release) return;
        for (const { path, annotations } of annotationMaps(release.values)) {
            for (const key of Object.keys(annotations)) {
                if (CHART_MANAGED_PREFIXES.some((prefix) => key.startsWith(prefix))) {
                    reportViolation(`${label(release)}: ${path}["${key}"] is managed by the chart itself.`);
                }
            }
        }
    },
};
