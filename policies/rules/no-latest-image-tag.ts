import type { ResourceValidationPolicy } from "@pulumi/policy";
import { imageRefProblem, valueImageProblems } from "../lib/images";
import { label, releaseFromArgs } from "../lib/release";
import { containers, describe, workloadFromArgs } from "../lib/workloads";

export const noLatestImageTag: ResourceValidationPolicy = {
    name: "no-latest-image-tag",
    description:
        "No image uses the `latest` tag or no tag: the runbooks pin every image (base.yaml tags, the " +
        "inotify tuner's `busybox:1.36`), so that an upgrade is a reviewed change and air-gapped mirrors " +
        "hold exactly what is deployed.",
    enforcementLevel: "mandatory",
    remediationSteps: "Pin the image to a version tag or a digest (`name:1.2.3` or `name@sha256:...`).",
    validateResource: (args, reportViolation) => {
        const workload = workloadFromArgs(args);
        if (workload) {
            for (const container of containers(workload.podSpec)) {
                const image = container.image;
                const problem = typeof image === "string" ? imageRefProblem(image) : undefined;
                if (problem) reportViolation(`${describe(workload)}: image "${String(image)}" ${problem}.`);
            }
            return;
        }
        const release = releaseFromArgs(args);
        if (!release) return;
        for (const { path, problem } of valueImageProblems(release.values)) {
            reportViolation(`${label(release)}: ${path} ${problem}.`);
        }
    },
};
