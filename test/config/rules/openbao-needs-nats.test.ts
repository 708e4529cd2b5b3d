import { test } from "node:test";
import { assertProblems, devRaw, parse } from "../../support/raw-config";
import { CP } from "../support";

test("NATS off while OpenBao is on (its migrations copy the NATS nkeys)", () => {
    assertProblems(devRaw({ controlPlane: { nats: { enabled: false } } }), [
        {
            key: `${CP}.nats.enabled`,
            message: "openbao-server needs the nats release's Secrets (its migrations copy the NATS nkeys)",
            given: false,
            allowed: "true while openbao.enabled is true",
        },
    ]);
    parse(devRaw({ controlPlane: { nats: { enabled: false }, openbao: { enabled: false } } }));
});
