import type { ControlPlaneRule } from "./rule";

/** In token mode the auth callout asks the NVCF API's webhook: its URL must be set. */
export const natsTokenWebhookUrl: ControlPlaneRule = (cp) => {
    if (cp.nats.workerAuth === "token" && cp.nats.authCallout.workerTokenAuth.webhookUrl.trim() === "") {
        return [
            {
                path: "nats.authCallout.workerTokenAuth.webhookUrl",
                message: "must not be empty when nats.workerAuth is token",
                given: "",
                allowed: "the NVCF API's webhook URL, e.g. http://api.nvcf.svc.cluster.local:8080/v2/nvcf/webhook/nats-auth",
            },
        ];
    }
    return [];
};
