import { describe, it } from "node:test";
import { natsTokenAuthWebhookUrl } from "../rules/nats-token-auth-webhook-url";
import { registryCredentialsRawAuth } from "../rules/registry-credentials-raw-auth";
import {
    assertHasResourceViolation,
    assertNoResourceViolations,
    createResourceValidationArgs as args,
    UNKNOWN_FROM_ENGINE,
} from "./support/args";
import { ALL_FIXTURES, apiRelease, natsRelease, openbaoRelease, RAW_AUTH, REMOVE, withProp } from "./support/fixtures";

const WEBHOOK = ["values", "nats", "authCallout", "workerTokenAuth", "webhookUrl"];
const CREDENTIAL = ["values", "api", "accountBootstrap", "registryCredentials", 0, "secret", "value"];
const SIDECAR = ["values", "openbao", "migrations", "env", 1, "value"];
const base64 = (text: string) => Buffer.from(text).toString("base64");

describe("nats-token-auth-webhook-url", () => {
    const policy = natsTokenAuthWebhookUrl;

    it("passes every compliant fixture", async () => {
        for (const fixture of ALL_FIXTURES) await assertNoResourceViolations(policy, args(fixture()));
    });

    it("flags an empty webhook URL in token mode", async () => {
        await assertHasResourceViolation(
            policy,
            args(withProp(natsRelease(), WEBHOOK, "  ")),
            "token mode needs nats.authCallout.workerTokenAuth.webhookUrl",
        );
    });

    it("flags a missing webhook URL in token mode", async () => {
        await assertHasResourceViolation(policy, args(withProp(natsRelease(), WEBHOOK, REMOVE)), "token mode needs");
    });

    it("needs no webhook in nkey mode", async () => {
        const nkey = withProp(withProp(natsRelease(), ["values", "nats", "workerAuth"], "nkey"), WEBHOOK, "");
        await assertNoResourceViolations(policy, args(nkey));
    });

    it("skips a URL unknown during preview", async () => {
        await assertNoResourceViolations(policy, args(withProp(natsRelease(), WEBHOOK, UNKNOWN_FROM_ENGINE)));
    });
});

describe("registry-credentials-raw-auth", () => {
    const policy = registryCredentialsRawAuth;

    it("passes every compliant fixture", async () => {
        for (const fixture of ALL_FIXTURES) await assertNoResourceViolations(policy, args(fixture()));
    });

    it("flags a base64 dockerconfigjson as account credential", async () => {
        const dockerconfig = base64(JSON.stringify({ auths: { "nvcr.io": { auth: RAW_AUTH } } }));
        await assertHasResourceViolation(
            policy,
            args(withProp(apiRelease(), CREDENTIAL, dockerconfig)),
            "registry credential 0 (nvcr.io) decodes to JSON",
        );
    });

    it("flags a plain dockerconfigjson as account credential", async () => {
        await assertHasResourceViolation(policy, args(withProp(apiRelease(), CREDENTIAL, '{"auths":{}}')), "is JSON");
    });

    it("flags a key that is not base64", async () => {
        await assertHasResourceViolation(policy, args(withProp(apiRelease(), CREDENTIAL, "nvapi-raw-key!")), "is not base64");
    });

    it("flags base64 of a key without user", async () => {
        await assertHasResourceViolation(
            policy,
            args(withProp(apiRelease(), CREDENTIAL, base64("nvapi-key-only"))),
            "does not decode to user:password",
        );
    });

    it("flags the trailing newline of `echo | base64`", async () => {
        await assertHasResourceViolation(
            policy,
            args(withProp(apiRelease(), CREDENTIAL, base64("$oauthtoken:key\n"))),
            "control characters",
        );
    });

    it("flags a dockerconfigjson sidecar secret", async () => {
        const dockerconfig = base64(JSON.stringify({ auths: {} }));
        await assertHasResourceViolation(
            policy,
            args(withProp(openbaoRelease(), SIDECAR, dockerconfig)),
            "NVCF_API_SIDECARS_IMAGE_PULL_SECRET decodes to JSON",
        );
    });

    it("accepts the empty sidecar secret of a stack without keys", async () => {
        await assertNoResourceViolations(policy, args(withProp(openbaoRelease(), SIDECAR, "")));
    });

    it("skips credentials unknown during preview", async () => {
        await assertNoResourceViolations(policy, args(withProp(apiRelease(), CREDENTIAL, UNKNOWN_FROM_ENGINE)));
        await assertNoResourceViolations(policy, args(withProp(openbaoRelease(), SIDECAR, UNKNOWN_FROM_ENGINE)));
    });
});
