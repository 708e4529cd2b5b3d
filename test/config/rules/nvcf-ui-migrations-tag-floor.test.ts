import { test } from "node:test";
import { assertProblems, devRaw, parse } from "../../support/raw-config";
import { CP } from "../support";

test("nvcf-ui's OpenBao migrations tag under the 0.16.2 floor", () => {
    const raw = (tag: string, enabled = true) =>
        devRaw({ controlPlane: { addons: { nvcfUi: { enabled, openbaoMigrations: { image: { tag } } } } } });
    assertProblems(raw("0.16.1"), [
        {
            key: `${CP}.addons.nvcfUi.openbaoMigrations.image.tag`,
            message: "the nvcf-ui OpenBao migrations need 0.16.2 or newer",
            given: "0.16.1",
            allowed: ">= 0.16.2",
        },
    ]);
    parse(raw("v0.16.2"));
    parse(raw("0.16.1", false));
});
