import { test } from "node:test";
import { assertProblems, devRaw } from "../../support/raw-config";
import { CP } from "../support";

test("token mode with an empty webhook URL", () => {
    assertProblems(devRaw({ controlPlane: { nats: { workerAuth: "token", authCallout: { workerTokenAuth: { webhookUrl: " " } } } } }), [
        {
            key: `${CP}.nats.authCallout.workerTokenAuth.webhookUrl`,
            message: "must not be empty when nats.workerAuth is token",
            given: "",
            allowed: "the NVCF API's webhook URL, e.g. http://api.nvcf.svc.cluster.local:8080/v2/nvcf/webhook/nats-auth",
        },
    ]);
});
