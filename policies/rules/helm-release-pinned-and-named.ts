import type { ResourceValidationPolicy } from "@pulumi/policy";
import { UNKNOWN } from "../lib/known";
import { label, releaseFromArgs } from "../lib/release";

/** An exact chart version (`1.25.1`, `v1.17.0`, `v0.1.0-alpha.11`), not a range. */
const EXACT_VERSION = /^v?\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/;

export const helmReleasePinnedAndNamed: ResourceValidationPolicy = {
    name: "helm-release-pinned-and-named",
    description:
        "Every Helm release pins an exact chart version and names its release explicitly, as the bundle's " +
        "helmfiles do: an unpinned chart upgrades itself on the next run, and an auto-named release " +
        "renames every object of the chart (the charts' in-repository Chart.yaml versions are not the " +
        "stack's: pin the stack's versions).",
    enforcementLevel: "mandatory",
    remediationSteps:
        "Set `version` to the exact chart version of the bundle's catalog (or a `releases.<name>.version` " +
        "override) and `name` to the bundle's release name.",
    validateResource: (args, reportViolation) => {
        const release = releaseFromArgs(args);
        if (!release) return;
        const { name } = release;
        if (name !== UNKNOWN && (typeof name !== "string" || name.trim() === "")) {
            reportViolation(`${label(release)} has no explicit release name; Pulumi would generate one.`);
        }
        const version = release.props.version;
        if (version === UNKNOWN) return;
        if (typeof version !== "string" || version.trim() === "") {
            reportViolation(`${label(release)} pins no chart version.`);
        } else if (!EXACT_VERSION.test(version)) {
            reportViolation(`${label(release)} chart version "${version}" is not an exact version.`);
        }
    },
};
