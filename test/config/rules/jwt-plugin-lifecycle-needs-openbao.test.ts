import assert from "node:assert/strict";
import { test } from "node:test";
import { assertProblems, devRaw, parse } from "../../support/raw-config";
import { CP } from "../support";

test("the OpenBao JWT plugin lifecycle: bridge or versioned, and only with OpenBao on", () => {
    for (const mode of ["bridge", "versioned"]) {
        const settings = parse(devRaw({ controlPlane: { openbao: { jwtPluginLifecycle: { mode } } } }));
        assert.equal(settings.controlPlane.openbao.jwtPluginLifecycle.mode, mode);
    }
    assert.equal(parse(devRaw()).controlPlane.openbao.jwtPluginLifecycle.mode, undefined, "unset by default");
    assertProblems(devRaw({ controlPlane: { openbao: { jwtPluginLifecycle: { mode: "latest" } } } }), [
        {
            key: `${CP}.openbao.jwtPluginLifecycle.mode`,
            message: 'Invalid option: expected one of "bridge"|"versioned"',
            given: "latest",
        },
    ]);
    assertProblems(
        devRaw({ controlPlane: { nats: { enabled: false }, openbao: { enabled: false, jwtPluginLifecycle: { mode: "bridge" } } } }),
        [
            {
                key: `${CP}.openbao.jwtPluginLifecycle.mode`,
                message: "the JWT plugin lifecycle is OpenBao's, and openbao.enabled is false",
                given: "bridge",
                allowed: "unset while openbao.enabled is false",
            },
        ],
    );
});
