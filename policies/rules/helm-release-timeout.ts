import type { ResourceValidationPolicy } from "@pulumi/policy";
import { UNKNOWN } from "../lib/known";
import { label, RELEASES, releaseFromArgs } from "../lib/release";

/** The Release resource's timeout when none is given. */
const PROVIDER_DEFAULT_SECONDS = 300;
/** The bundle's helmDefaults `timeout: 900` (control and compute stacks alike). */
const BUNDLE_SECONDS = 900;

/** Releases with a different documented floor: the smallest acceptable timeout, in seconds. */
const MINIMUM_SECONDS: Readonly<Record<string, { seconds: number; why: string }>> = {
    // Its pre-delete cleanup job may run 540 + 60 s; a shorter timeout leaves finalizers behind.
    [RELEASES.nvcaOperator]: { seconds: 601, why: "above 600 s (its cleanup job runs up to 600 s)" },
    // The SMB CSI runbook installs it with `--wait --timeout 5m`.
    [RELEASES.smbCsiDriver]: { seconds: 300, why: "at least 300 s (the runbook's --timeout 5m)" },
};

export const helmReleaseTimeout: ResourceValidationPolicy = {
    name: "helm-release-timeout",
    description:
        "Helm release timeouts are at least the bundle's 900 s (the helmfile default on every release: the " +
        "hook jobs, such as the OpenBao initialisation and migrations, need it), above 600 s for nvca-operator " +
        "(its pre-delete cleanup job runs up to 600 s and must finish to clear the operator's finalizers) " +
        "and at least 300 s for the SMB CSI driver.",
    enforcementLevel: "mandatory",
    remediationSteps: "Set the release's `timeout` to 900.",
    validateResource: (args, reportViolation) => {
        const release = releaseFromArgs(args);
        if (!release || release.name === UNKNOWN) return;
        const timeout = release.props.timeout ?? PROVIDER_DEFAULT_SECONDS;
        if (timeout === UNKNOWN) return;
        const floor = (typeof release.name === "string" && MINIMUM_SECONDS[release.name]) || {
            seconds: BUNDLE_SECONDS,
            why: "at least the bundle's 900 s",
        };
        if (typeof timeout !== "number" || timeout < floor.seconds) {
            reportViolation(`${label(release)} timeout is ${String(timeout)} s; it must be ${floor.why}.`);
        }
    },
};
