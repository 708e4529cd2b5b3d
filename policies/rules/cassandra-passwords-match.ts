import type { StackValidationPolicy } from "@pulumi/policy";
import { at, UNKNOWN } from "../lib/known";
import { migrationEnv, RELEASES } from "../lib/release";
import { releasesNamed, stackView } from "../lib/stack";

export const cassandraPasswordsMatch: StackValidationPolicy = {
    name: "cassandra-passwords-match",
    description:
        "Cassandra's `serviceRolePassword` equals OpenBao's `DEFAULT_CASSANDRA_PASSWORD` on the same " +
        "cluster (both are write-once and must be equal; the runbook's SKILL: otherwise every " +
        'database-backed service crash-loops with "Bad credentials").',
    enforcementLevel: "mandatory",
    remediationSteps:
        "Remove `releases` overrides of either password so both come from `cassandraPassword`. On an " +
        "existing install both are write-once: rotate the password in Cassandra and OpenBao by hand.",
    validateStack: (args, reportViolation) => {
        const view = stackView(args);
        for (const cassandra of releasesNamed(view, RELEASES.cassandra)) {
            const rolePassword = at(cassandra.release?.values, "cassandra", "serviceRolePassword");
            // Unset or unknown (preview) passwords are cassandra-password-set's and the engine's business.
            if (rolePassword === UNKNOWN || rolePassword === undefined) continue;
            for (const openbao of releasesNamed(view, RELEASES.openbao)) {
                if (openbao.cluster !== cassandra.cluster) continue;
                const defaultPassword = migrationEnv(openbao.release?.values, "DEFAULT_CASSANDRA_PASSWORD");
                if (defaultPassword === UNKNOWN || defaultPassword === undefined) continue;
                if (defaultPassword !== rolePassword) {
                    // Never quote either value: both are secrets.
                    reportViolation(
                        "cassandra.serviceRolePassword (release cassandra) differs from DEFAULT_CASSANDRA_PASSWORD " +
                            "(release openbao-server).",
                        cassandra.urn,
                    );
                }
            }
        }
    },
};
