import type { ResourceValidationPolicy } from "@pulumi/policy";
import { annotationMaps } from "../lib/annotations";
import { UNKNOWN } from "../lib/known";
import { label, releaseFromArgs } from "../lib/release";

export const podAnnotationValuesAreStrings: ResourceValidationPolicy = {
    name: "pod-annotation-values-are-strings",
    description:
        "Pod annotation values passed to the charts are strings (NVCF 1.1.0 control-plane operations: pod " +
        "annotations; Kubernetes rejects a number or boolean annotation after the chart renders it).",
    enforcementLevel: "mandatory",
    remediationSteps: 'Quote the value in the stack file: `"8080"`, `"true"`.',
    validateResource: (args, reportViolation) => {
        const release = releaseFromArgs(args);
        if (!release) return;
        for (const { path, annotations } of annotationMaps(release.values)) {
            for (const [key, value] of Object.entries(annotations)) {
                if (value !== UNKNOWN && typeof value !== "string") {
                    reportViolation(`${label(release)}: ${path}["${key}"] is not a string.`);
                }
            }
        }
    },
};
