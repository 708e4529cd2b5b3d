import type { StackValidationPolicy } from "@pulumi/policy";
import { RELEASES } from "../lib/release";
import { computePlaneOf, dependencyClosure, isObject, releasesNamed, stackView, type StackResource, type StackView } from "../lib/stack";
import { INOTIFY_TUNER } from "./privileged-only-inotify-tuner";

const DAEMONSET_TYPE = "kubernetes:apps/v1:DaemonSet";
const REGISTRATION_SUFFIX = ":ClusterRegistration";

interface Prerequisite {
    readonly what: string;
    readonly matches: (candidate: StackResource, operator: StackResource, view: StackView) => boolean;
}

/** Same cluster: the same Kubernetes provider. */
const onSameCluster = (a: StackResource, b: StackResource): boolean => a.cluster !== undefined && a.cluster === b.cluster;

const PREREQUISITES: readonly Prerequisite[] = [
    {
        what: "a cluster registration",
        // A dynamic resource has no Kubernetes provider: it belongs to the operator's cluster when both
        // sit in the same ComputePlane component (or when neither sits in one).
        matches: (r, operator, view) => r.type.endsWith(REGISTRATION_SUFFIX) && computePlaneOf(view, r) === computePlaneOf(view, operator),
    },
    {
        what: `the SMB CSI driver (release ${RELEASES.smbCsiDriver})`,
        matches: (r, operator) => r.release?.name === RELEASES.smbCsiDriver && onSameCluster(r, operator),
    },
    {
        what: `the inotify tuner (DaemonSet ${INOTIFY_TUNER.namespace}/${INOTIFY_TUNER.name})`,
        matches: (r, operator) => isObject(r, DAEMONSET_TYPE, INOTIFY_TUNER.name, INOTIFY_TUNER.namespace) && onSameCluster(r, operator),
    },
];

export const nvcaOperatorPrerequisites: StackValidationPolicy = {
    name: "nvca-operator-prerequisites",
    description:
        "Every nvca-operator release depends on a cluster registration, the SMB CSI driver and the inotify " +
        "tuner of its own cluster (they are prerequisites that must come before " +
        "nvca-operator; without the registration the operator has no cluster identity).",
    enforcementLevel: "mandatory",
    remediationSteps:
        "Declare the missing prerequisite on the same Kubernetes provider and add it to the nvca-operator " + "release's `dependsOn`.",
    validateStack: (args, reportViolation) => {
        const view = stackView(args);
        for (const operator of releasesNamed(view, RELEASES.nvcaOperator)) {
            const closure = dependencyClosure(view, operator);
            for (const prerequisite of PREREQUISITES) {
                if (!closure.some((r) => prerequisite.matches(r, operator, view))) {
                    reportViolation(`Release nvca-operator does not depend on ${prerequisite.what} of its cluster.`, operator.urn);
                }
            }
        }
    },
};
