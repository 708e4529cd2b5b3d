import assert from "node:assert/strict";
import { test } from "node:test";
import { RELEASE_NAMES } from "../../../components/catalog/control-plane";
import { assertProblems, devRaw } from "../../support/raw-config";
import { P } from "../support";

test("an override for a release the catalog does not have", () => {
    const error = assertProblems(devRaw({ values: { releases: { apis: { version: "1.0.0" } } } }), [
        { key: `${P}:releases.apis`, message: "unknown release", given: "apis", allowed: RELEASE_NAMES.join(", ") },
    ]);
    assert.match(error.message, /allowed: .*api-keys/);
});
