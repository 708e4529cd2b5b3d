import type { ResourceValidationPolicy } from "@pulumi/policy";
import { rawAuthProblem } from "../lib/credentials";
import { at, isList, UNKNOWN } from "../lib/known";
import { label, migrationEnv, RELEASES, releaseFromArgs } from "../lib/release";

export const registryCredentialsRawAuth: ResourceValidationPolicy = {
    name: "registry-credentials-raw-auth",
    description:
        "The account-bootstrap registry credentials (`api.accountBootstrap.registryCredentials[].secret.value`) " +
        "and the sidecar secret (`NVCF_API_SIDECARS_IMAGE_PULL_SECRET`) decode to `user:password`, not to a " +
        'dockerconfigjson (secrets template: a credential is `base64("$oauthtoken:<key>")`; otherwise ' +
        "`function create` fails with 400 and every sidecar pull with 403).",
    enforcementLevel: "mandatory",
    remediationSteps:
        "Let the program encode the keys (ngcApiKey, accountRegistryKey, sidecarRegistryKey); by hand: " +
        "`printf '$oauthtoken:%s' \"$KEY\" | openssl base64 -A`.",
    validateResource: (args, reportViolation) => {
        const release = releaseFromArgs(args);
        if (release?.name === RELEASES.api) {
            const credentials = at(release.values, "api", "accountBootstrap", "registryCredentials");
            (isList(credentials) ? credentials : []).forEach((credential, i) => {
                const value = at(credential, "secret", "value");
                const why = value === UNKNOWN ? undefined : rawAuthProblem(value ?? null);
                if (why) {
                    const host = at(credential, "registryHostname");
                    const which = typeof host === "string" ? ` (${host})` : "";
                    reportViolation(`${label(release)}: registry credential ${i}${which} ${why}.`);
                }
            });
        }
        if (release?.name === RELEASES.openbao) {
            const value = migrationEnv(release.values, "NVCF_API_SIDECARS_IMAGE_PULL_SECRET");
            // Empty is what the program sets without any key: sidecars then pull anonymously (a mirror).
            if (value === UNKNOWN || value === undefined || value === "") return;
            const why = rawAuthProblem(value);
            if (why) reportViolation(`${label(release)}: NVCF_API_SIDECARS_IMAGE_PULL_SECRET ${why}.`);
        }
    },
};
