import assert from "node:assert/strict";
import { test } from "node:test";
import { assertProblems, devRaw, parse } from "../../support/raw-config";
import { P } from "../support";

test("the platform smoke check: an image with its registry host, and a token it can get", () => {
    const smoke = (extra: Record<string, unknown>) => ({ checks: { smoke: { platform: true, ...extra } } });
    const key = `${P}:checks.smoke.functionImage`;
    assertProblems(devRaw({ values: smoke({}) }), [
        {
            key,
            message:
                "is required with checks.smoke.platform: the function's image, which the API looks up in its registry with the default account's credential",
            allowed: "e.g. nvcr.io/<org>/<team>/<image>:<tag>",
        },
    ]);
    assertProblems(devRaw({ values: smoke({ functionImage: "fastapi-echo:1.0" }) }), [
        {
            key,
            message: "must start with its registry host: the API refuses an image without one (Invalid registry URL)",
            given: "fastapi-echo:1.0",
            allowed: "e.g. nvcr.io/<org>/<team>/<image>:<tag>",
        },
    ]);
    const image = "nvcr.io/example/team/echo:1.0";
    assertProblems(devRaw({ controlPlane: { adminIssuerProxy: { enabled: false } }, values: smoke({ functionImage: image }) }), [
        {
            key: `${P}:nvcfAdminToken`,
            message:
                "is required for checks.smoke.platform when the admin issuer proxy's route is off: a token with the " +
                "register_function, list_functions and delete_function scopes (`pulumi config set --secret nvcfAdminToken <token>`)",
        },
    ]);
    const settings = parse(devRaw({ values: smoke({ functionImage: image }) }));
    assert.deepEqual(
        [settings.checks.smoke.helmTests, settings.checks.smoke.platform, settings.checks.smoke.timeoutSeconds],
        [true, true, 300],
    );
    assert.equal(parse(devRaw()).checks.smoke.platform, false, "off by default: it needs the Gateway from this machine");
});
