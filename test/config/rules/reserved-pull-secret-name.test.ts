import { test } from "node:test";
import { assertProblems, devRaw, parse } from "../../support/raw-config";
import { P, plane } from "../support";

test("a control-plane pull secret name the NVCA mirror reserves, once there is a compute plane", () => {
    const registry = { pullSecret: { name: "ngc-api-key" } };
    assertProblems(devRaw({ values: { registry, computePlanes: [plane()] } }), [
        {
            key: `${P}:registry.pullSecret.name`,
            message: "the NVCA mirror reserves this pull secret name",
            given: "ngc-api-key",
            allowed: "e.g. nvcr-pull-secret",
        },
    ]);
    parse(devRaw({ values: { registry } }));
});
