import { test } from "node:test";
import { assertProblems, devRaw } from "../../support/raw-config";
import { CP } from "../support";

test("a chart URL and a chart path together", () => {
    assertProblems(devRaw({ controlPlane: { global: { helm: { sources: { url: "https://charts.example.com", path: "/charts" } } } } }), [
        {
            key: `${CP}.global.helm.sources.path`,
            message: "set either global.helm.sources.url (an https chart repository) or .path (a local directory), not both",
            given: "/charts",
        },
    ]);
});
