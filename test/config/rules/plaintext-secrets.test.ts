import assert from "node:assert/strict";
import { test } from "node:test";
import { assertProblems, devRaw } from "../../support/raw-config";
import { P } from "../support";

test("a secret stored in plain text: the key is named, the value never", () => {
    const error = assertProblems(devRaw({ plaintextSecretKeys: ["nvcfAdminToken"], secrets: { nvcfAdminToken: "plain-token" } }), [
        {
            key: `${P}:nvcfAdminToken`,
            message: "is stored in plain text in the stack file: set it again with `pulumi config set --secret nvcfAdminToken`",
            given: undefined,
        },
    ]);
    assert.doesNotMatch(error.message, /plain-token/);
});
