import { test } from "node:test";
import { assertProblems, devRaw, parse } from "../../support/raw-config";
import { CP } from "../support";

test("the bundle's placeholder image repository", () => {
    assertProblems(devRaw({ controlPlane: { global: { image: { repository: "YOUR_ORG/YOUR_TEAM" } } } }), [
        {
            key: `${CP}.global.image.repository`,
            message: "still the bundle's placeholder; set the NGC org/team (or mirror path) that holds the NVCF images",
            given: "YOUR_ORG/YOUR_TEAM",
            allowed: "e.g. my-org/my-team",
        },
    ]);
});

test("the bundle's placeholder chart repository, unless a chart URL or path replaces it", () => {
    assertProblems(devRaw({ controlPlane: { global: { helm: { sources: { repository: "YOUR_ORG/YOUR_TEAM" } } } } }), [
        {
            key: `${CP}.global.helm.sources.repository`,
            message: "still the bundle's placeholder; set the org/team (or mirror path) that holds the NVCF charts",
            given: "YOUR_ORG/YOUR_TEAM",
            allowed: "e.g. my-org/my-team, or set global.helm.sources.url or .path instead",
        },
    ]);
    parse(devRaw({ controlPlane: { global: { helm: { sources: { repository: "YOUR_ORG/YOUR_TEAM", path: "/charts" } } } } }));
});
