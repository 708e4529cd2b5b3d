import { test } from "node:test";
import { assertProblems, devRaw, parse } from "../../support/raw-config";
import { CP } from "../support";

test("the control profile without state metrics", () => {
    assertProblems(devRaw({ controlPlane: { stateMetrics: { enabled: false } } }), [
        {
            key: `${CP}.stateMetrics.enabled`,
            message: "function-autoscaler requires stateMetrics.enabled=true for control and all observability profiles",
            given: false,
            allowed: "true, or observability.profile disabled or compute",
        },
    ]);
    parse(devRaw({ controlPlane: { stateMetrics: { enabled: false }, observability: { profile: "compute" } } }));
});
