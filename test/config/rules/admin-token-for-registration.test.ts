import { test } from "node:test";
import { assertProblems, devRaw, parse } from "../../support/raw-config";
import { P, plane } from "../support";

test("no admin token while the admin issuer proxy's route is off", () => {
    const message =
        "is required to register GPU clusters when the admin issuer proxy's route is off: " +
        "set a token with the cluster-management scope from your identity provider " +
        "(`pulumi config set --secret nvcfAdminToken <token>`)";
    assertProblems(devRaw({ controlPlane: { adminIssuerProxy: { enabled: false } }, values: { computePlanes: [plane()] } }), [
        { key: `${P}:nvcfAdminToken`, message },
    ]);
    assertProblems(devRaw({ controlPlane: { adminIssuerProxy: { gateway: { enabled: false } } }, values: { computePlanes: [plane()] } }), [
        { key: `${P}:nvcfAdminToken`, message },
    ]);
    parse(
        devRaw({
            controlPlane: { adminIssuerProxy: { enabled: false } },
            values: { computePlanes: [plane()] },
            secrets: { nvcfAdminToken: "t" },
        }),
    );
});
