import type { ResourceValidationPolicy } from "@pulumi/policy";
import { label, releaseFromArgs } from "../lib/release";

export const helmReleaseNoCreateNamespace: ResourceValidationPolicy = {
    name: "helm-release-no-create-namespace",
    description:
        "No Helm release creates its namespace: the stack owns every namespace as a resource, so that " +
        "teardown deletes them (and the PVCs and hook secrets Helm leaves behind) and labels such as " +
        "`nvcf/platform=true` are set.",
    enforcementLevel: "mandatory",
    remediationSteps:
        "Set `createNamespace: false` and declare the namespace as a `kubernetes:core/v1:Namespace` the " + "release depends on.",
    validateResource: (args, reportViolation) => {
        const release = releaseFromArgs(args);
        if (release?.props.createNamespace === true) {
            reportViolation(`${label(release)} sets createNamespace; the namespace must be an owned resource.`);
        }
    },
};
