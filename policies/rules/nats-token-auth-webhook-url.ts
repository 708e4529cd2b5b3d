import type { ResourceValidationPolicy } from "@pulumi/policy";
import { at, UNKNOWN } from "../lib/known";
import { label, RELEASES, releaseFromArgs } from "../lib/release";

export const natsTokenAuthWebhookUrl: ResourceValidationPolicy = {
    name: "nats-token-auth-webhook-url",
    description:
        "In NATS token mode (`nats.workerAuth: token`) the auth callout's webhook URL " +
        "(`nats.authCallout.workerTokenAuth.webhookUrl`) is not empty (NVCF 1.1.0: an empty URL in token " +
        "mode fails; workers could not authenticate).",
    enforcementLevel: "mandatory",
    remediationSteps:
        "Unset `nats.authCallout.workerTokenAuth.webhookUrl` to use the API's in-cluster URL, or set it to the " +
        "NVCF API's webhook (`http://api.nvcf.svc.cluster.local:8080/v2/nvcf/webhook/nats-auth`).",
    validateResource: (args, reportViolation) => {
        const release = releaseFromArgs(args);
        if (release?.name !== RELEASES.nats || at(release.values, "nats", "workerAuth") !== "token") return;
        const url = at(release.values, "nats", "authCallout", "workerTokenAuth", "webhookUrl");
        if (url !== UNKNOWN && (typeof url !== "string" || url.trim() === "")) {
            reportViolation(`${label(release)}: token mode needs nats.authCallout.workerTokenAuth.webhookUrl.`);
        }
    },
};
