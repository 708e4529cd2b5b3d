import type { ResourceValidationPolicy } from "@pulumi/policy";
import { at, UNKNOWN, type Plain } from "../lib/known";
import { label, migrationEnvEntry, RELEASES, releaseFromArgs } from "../lib/release";

/** The cassandra chart's and the secrets template's default; every install would share it. */
export const CHART_DEFAULT_PASSWORD = "ch@ng3m3";

/** Why a password value is unacceptable, or undefined. Never quotes the value: it is a secret. */
function problem(value: Plain | undefined): string | undefined {
    if (value === UNKNOWN) return undefined;
    if (typeof value !== "string" || value === "") return "is not set";
    if (value === CHART_DEFAULT_PASSWORD) return "is the chart default ch@ng3m3";
    return undefined;
}

export const cassandraPasswordSet: ResourceValidationPolicy = {
    name: "cassandra-password-set",
    description:
        "Cassandra's service-role password (`cassandra.serviceRolePassword`) and OpenBao's " +
        "`DEFAULT_CASSANDRA_PASSWORD` are set and are not the chart default `ch@ng3m3` (secrets template; " +
        "both are write-once, so a default password stays for the life of the install).",
    enforcementLevel: "mandatory",
    remediationSteps:
        "Leave `cassandraPassword` unset (the program generates one) or set it with " +
        "`pulumi config set --secret cassandraPassword`; remove any `releases` override of these values.",
    validateResource: (args, reportViolation) => {
        const release = releaseFromArgs(args);
        if (release?.name === RELEASES.cassandra) {
            const why = problem(at(release.values, "cassandra", "serviceRolePassword"));
            if (why) reportViolation(`${label(release)}: cassandra.serviceRolePassword ${why}.`);
        }
        if (release?.name === RELEASES.openbao) {
            const entry = migrationEnvEntry(release.values, "DEFAULT_CASSANDRA_PASSWORD");
            // A missing entry is openbao-migrations-env-complete's finding.
            const why = entry === undefined ? undefined : problem(at(entry, "value"));
            if (why) reportViolation(`${label(release)}: DEFAULT_CASSANDRA_PASSWORD ${why}.`);
        }
    },
};
