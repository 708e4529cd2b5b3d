import { test } from "node:test";
import { assertProblems, devRaw, parse } from "../../support/raw-config";
import { P } from "../support";

const ECR = "123456789012.dkr.ecr.us-west-2.amazonaws.com";

test("no NGC key: the image pull secrets and the nvcr.io charts both need it", () => {
    assertProblems(devRaw({ secrets: { ngcApiKey: undefined } }), [
        {
            key: `${P}:ngcApiKey`,
            message:
                "is required for the image pull secrets (set it with `pulumi config set --secret ngcApiKey <key>`), " +
                "or set registry.pullSecret.enabled: false when nodes pull with their own identity",
        },
        { key: `${P}:ngcApiKey`, message: "is required to pull the charts from nvcr.io (or set chartRegistryPassword)" },
    ]);
});

test("no NGC key with node-identity pulls or ECR images: only the charts need it, or chartRegistryPassword", () => {
    const charts = [{ key: `${P}:ngcApiKey`, message: "is required to pull the charts from nvcr.io (or set chartRegistryPassword)" }];
    assertProblems(devRaw({ secrets: { ngcApiKey: undefined }, values: { registry: { pullSecret: { enabled: false } } } }), charts);
    assertProblems(devRaw({ secrets: { ngcApiKey: undefined }, controlPlane: { global: { image: { registry: ECR } } } }), charts);
    parse(
        devRaw({
            secrets: { ngcApiKey: undefined, chartRegistryPassword: "p" },
            values: { registry: { pullSecret: { enabled: false } } },
        }),
    );
    parse(
        devRaw({
            secrets: { ngcApiKey: undefined },
            controlPlane: { global: { image: { registry: ECR }, helm: { sources: { registry: ECR } } } },
        }),
    );
});
