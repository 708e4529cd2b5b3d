import { test } from "node:test";
import { assertProblems, devRaw, parse } from "../../support/raw-config";
import { P, plane } from "../support";

test("KAIScheduler without the KAI scheduler", () => {
    assertProblems(devRaw({ values: { computePlanes: [plane({ featureGates: ["KAIScheduler"] })] } }), [
        {
            key: `${P}:computePlanes[0].featureGates`,
            message: "the KAIScheduler gate keeps NVCA unhealthy on a cluster without the KAI scheduler",
            given: "KAIScheduler",
            allowed: "addons.kaiScheduler.enabled: true, or kaiSchedulerInstalled: true once the KAI scheduler runs there",
        },
    ]);
    parse(devRaw({ values: { computePlanes: [plane({ featureGates: ["KAIScheduler"], kaiSchedulerInstalled: true })] } }));
    parse(devRaw({ values: { computePlanes: [plane({ featureGates: ["KAIScheduler"], addons: { kaiScheduler: { enabled: true } } })] } }));
});

test("DynamoOperatorSupport without the Dynamo operator", () => {
    assertProblems(devRaw({ values: { computePlanes: [plane({ featureGates: ["DynamoOperatorSupport"] })] } }), [
        {
            key: `${P}:computePlanes[0].featureGates`,
            message: "the DynamoOperatorSupport gate keeps NVCA unhealthy on a cluster without the Dynamo operator",
            given: "DynamoOperatorSupport",
            allowed: "addons.dynamoOperator.enabled: true, or dynamoOperatorInstalled: true once the Dynamo operator runs there",
        },
    ]);
    parse(devRaw({ values: { computePlanes: [plane({ featureGates: ["DynamoOperatorSupport"], dynamoOperatorInstalled: true })] } }));
    // A gate turned off (`-Gate`) names nothing.
    parse(devRaw({ values: { computePlanes: [plane({ featureGates: ["-DynamoOperatorSupport", "-KAIScheduler"] })] } }));
});
