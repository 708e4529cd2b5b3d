import type { StackValidationPolicy } from "@pulumi/policy";
import { RELEASES } from "../lib/release";
import { releasesNamed, stackView } from "../lib/stack";

/** The dynamic resource that deletes the proxy's three OpenBao objects (components/providers/openbao-grant-revocation.ts). */
const REVOCATION_SUFFIX = "GrantRevocation";

export const adminIssuerGrantRevoked: StackValidationPolicy = {
    name: "admin-issuer-grant-revoked",
    description:
        "When the stack has no admin-issuer-proxy release, an OpenBao grant revocation resource removes the " +
        "proxy's JWT role, ACL policy and auth role (NVCF 1.1.0 `adminIssuerProxy.enabled: false`: " +
        "migration 10 created them, every OpenBao sync recreates them and nothing in NVCF deletes them, so the " +
        "admin-token grant would stay).",
    enforcementLevel: "mandatory",
    remediationSteps:
        "Keep `adminIssuerProxy.enabled: false` together with the program's grant revocation resource; until " +
        "it exists, run the runbook's three `bao delete` commands and keep the proxy enabled in the stack.",
    validateStack: (args, reportViolation) => {
        const view = stackView(args);
        const openbao = releasesNamed(view, RELEASES.openbao);
        if (openbao.length === 0 || releasesNamed(view, RELEASES.adminIssuerProxy).length > 0) return;
        if (view.resources.some((r) => r.type.endsWith(REVOCATION_SUFFIX))) return;
        for (const release of openbao) {
            reportViolation(
                "There is no admin-issuer-proxy release, but no OpenBao grant revocation removes the proxy's grant " + "from this OpenBao.",
                release.urn,
            );
        }
    },
};
