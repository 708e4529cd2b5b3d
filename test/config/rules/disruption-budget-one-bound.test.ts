import { test } from "node:test";
import { assertProblems, devRaw, parse } from "../../support/raw-config";
import { CP } from "../support";

test("a disruption budget merges over base.yaml's: a partial block keeps its bound, and the charts need exactly one", () => {
    const both = 'one bound; set the other to "" (base.yaml sets one, and a partial block keeps it)';
    const given = (cassandra: object) => devRaw({ controlPlane: { cassandra: { podDisruptionBudget: cassandra } } });
    // base.yaml's minAvailable: 2 stays under a block that only turns the budget on.
    parse(given({ enabled: true }));
    assertProblems(given({ enabled: true, maxUnavailable: 1 }), [
        {
            key: `${CP}.cassandra.podDisruptionBudget`,
            message: "podDisruptionBudget: set exactly one of minAvailable or maxUnavailable, not both",
            given: { enabled: true, minAvailable: 2, maxUnavailable: 1 },
            allowed: both,
        },
    ]);
    parse(given({ enabled: true, minAvailable: "", maxUnavailable: 1 }));
    assertProblems(given({ enabled: true, minAvailable: "" }), [
        {
            key: `${CP}.cassandra.podDisruptionBudget`,
            message: "podDisruptionBudget: set exactly one of minAvailable or maxUnavailable",
            given: { enabled: true, minAvailable: "" },
            allowed: "minAvailable or maxUnavailable: a count or a percentage",
        },
    ]);
    // The services' blocks carry maxUnavailable: 1 from base.yaml.
    parse(devRaw({ controlPlane: { apikeys: { podDisruptionBudget: { enabled: true } } } }));
    parse(devRaw({ controlPlane: { apikeys: { podDisruptionBudget: { enabled: true, minAvailable: "50%", maxUnavailable: "" } } } }));
    assertProblems(devRaw({ controlPlane: { reval: { podDisruptionBudget: { enabled: true, minAvailable: 1 } } } }), [
        {
            key: `${CP}.reval.podDisruptionBudget`,
            message: "podDisruptionBudget: set exactly one of minAvailable or maxUnavailable, not both",
            given: { enabled: true, maxUnavailable: 1, minAvailable: 1 },
            allowed: both,
        },
    ]);
    // A release that is not installed renders no budget, so its block is not checked.
    parse(devRaw({ controlPlane: { llmApiGateway: { podDisruptionBudget: { enabled: true, minAvailable: 1 } } } }));
});
