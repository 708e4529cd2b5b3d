import type { ResourceValidationPolicy } from "@pulumi/policy";
import { annotationMaps } from "../lib/annotations";
import { UNKNOWN } from "../lib/known";
import { label, RELEASES, releaseFromArgs } from "../lib/release";

export const RESERVED_PREFIX = "nvcf.nvidia.com/nats-worker-auth";

/** The one reserved key the program itself sets: it restarts the auth callout on a mode change. */
const PROGRAM_OWNED = {
    release: RELEASES.natsAuthCallout,
    // The chart reads its pod annotations at the top level of its values.
    path: "podAnnotations",
    key: `${RESERVED_PREFIX}-checksum`,
} as const;

export const podAnnotationsReservedPrefix: ResourceValidationPolicy = {
    name: "pod-annotations-reserved-prefix",
    description:
        "No pod annotation key starts with the reserved prefix `nvcf.nvidia.com/nats-worker-auth` (NVCF 1.1.0: " +
        "such keys fail the render), except the program's own `nvcf.nvidia.com/nats-worker-auth-checksum` on " +
        "nats-auth-callout-service, which restarts it when the NATS worker auth mode or webhook changes.",
    enforcementLevel: "mandatory",
    remediationSteps: "Remove the annotation; the program sets the only key that may use this prefix.",
    validateResource: (args, reportViolation) => {
        const release = releaseFromArgs(args);
        if (!release || release.name === UNKNOWN) return;
        for (const { path, annotations } of annotationMaps(release.values)) {
            for (const key of Object.keys(annotations)) {
                if (!key.startsWith(RESERVED_PREFIX)) continue;
                const owned = release.name === PROGRAM_OWNED.release && path === PROGRAM_OWNED.path && key === PROGRAM_OWNED.key;
                if (!owned) reportViolation(`${label(release)}: ${path}["${key}"] uses the reserved prefix ${RESERVED_PREFIX}.`);
            }
        }
    },
};
