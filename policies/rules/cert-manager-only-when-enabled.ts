import type { StackValidationPolicy } from "@pulumi/policy";
import { RELEASES } from "../lib/release";
import { isObject, releasesNamed, stackView } from "../lib/stack";

const NAMESPACE_TYPE = "kubernetes:core/v1:Namespace";

export interface CertManagerConfig {
    /** The stack's `controlPlane.certManager.enabled`, when CI passes it in the policy-pack config. */
    readonly certManagerEnabled?: boolean;
}

export const certManagerOnlyWhenEnabled: StackValidationPolicy = {
    name: "cert-manager-only-when-enabled",
    description:
        "The stack declares a cert-manager release only when `certManager.enabled` is true (teardown SKILL: an " +
        "external cert-manager must never be taken over or uninstalled). Without policy config, the stack's " +
        "own `cert-manager` Namespace stands for `enabled: true`: the program declares it only then.",
    enforcementLevel: "advisory",
    configSchema: { properties: { certManagerEnabled: { type: "boolean" } } },
    remediationSteps:
        "With an external cert-manager set `certManager.enabled: false`, so the stack declares no cert-manager " +
        "release; otherwise set it to true.",
    validateStack: (args, reportViolation) => {
        const { certManagerEnabled } = args.getConfig<CertManagerConfig>();
        const view = stackView(args);
        for (const release of releasesNamed(view, RELEASES.certManager)) {
            const enabled =
                certManagerEnabled ??
                view.resources.some((r) => isObject(r, NAMESPACE_TYPE, "cert-manager") && r.cluster === release.cluster);
            if (!enabled) {
                reportViolation("The stack declares a cert-manager release, but certManager.enabled is false.", release.urn);
            }
        }
    },
};
