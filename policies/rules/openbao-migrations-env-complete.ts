import type { ResourceValidationPolicy } from "@pulumi/policy";
import { at, isList, UNKNOWN } from "../lib/known";
import { label, migrationEnv, migrationEnvEntry, RELEASES, releaseFromArgs } from "../lib/release";

const REQUIRED = ["DEFAULT_CASSANDRA_PASSWORD", "NVCF_API_SIDECARS_IMAGE_PULL_SECRET", "ADMIN_CLIENT_ID"] as const;
/** The `sub`/`azp`/`aud` of admin-issuer JWTs; must equal api.accountBootstrap.adminClientId. */
const ADMIN_CLIENT_ID = "ncp";

export const openbaoMigrationsEnvComplete: ResourceValidationPolicy = {
    name: "openbao-migrations-env-complete",
    description:
        "The openbao-server release's `openbao.migrations.env` carries all three entries of the secrets " +
        "template, with `ADMIN_CLIENT_ID: ncp` (Helm replaces lists whole, so a missing entry " +
        "falls back to nothing; the admin client ID must equal `api.accountBootstrap.adminClientId`, ncp).",
    enforcementLevel: "mandatory",
    remediationSteps:
        "Do not override `openbao.migrations.env` in `releases.openbao-server.values`; if you must, keep " +
        "DEFAULT_CASSANDRA_PASSWORD, NVCF_API_SIDECARS_IMAGE_PULL_SECRET and ADMIN_CLIENT_ID=ncp.",
    validateResource: (args, reportViolation) => {
        const release = releaseFromArgs(args);
        if (release?.name !== RELEASES.openbao) return;
        const env = at(release.values, "openbao", "migrations", "env");
        if (env === UNKNOWN) return;
        if (!isList(env)) {
            reportViolation(`${label(release)} sets no openbao.migrations.env list.`);
            return;
        }
        for (const name of REQUIRED) {
            if (migrationEnvEntry(release.values, name) === undefined) {
                reportViolation(`${label(release)}: openbao.migrations.env has no ${name} entry.`);
            }
        }
        const clientId = migrationEnv(release.values, "ADMIN_CLIENT_ID");
        if (clientId !== undefined && clientId !== UNKNOWN && clientId !== ADMIN_CLIENT_ID) {
            reportViolation(`${label(release)}: ADMIN_CLIENT_ID is "${String(clientId)}"; it must be "${ADMIN_CLIENT_ID}".`);
        }
    },
};
