import { test } from "node:test";
import { assertProblems, devRaw } from "../../support/raw-config";
import { P } from "../support";

const key = (k: string) => `${P}:${k}`;

test("kyverno mode needs a pull secret; installing Kyverno needs the mode and a version", () => {
    assertProblems(devRaw({ values: { registry: { pullSecret: { enabled: false, mode: "kyverno" } } } }), [
        {
            key: key("registry.pullSecret.mode"),
            message: "kyverno injects the stack's pull secret, and registry.pullSecret.enabled is false (no pull secret)",
        },
    ]);
    assertProblems(devRaw({ values: { registry: { kyverno: { install: true } } } }), [
        {
            key: key("registry.kyverno.install"),
            message: "installs Kyverno for registry.pullSecret.mode: kyverno, and the mode is values",
        },
        {
            key: key("registry.kyverno.version"),
            message: "is required when registry.kyverno.install is true: the stack pins every chart it installs",
        },
    ]);
});
