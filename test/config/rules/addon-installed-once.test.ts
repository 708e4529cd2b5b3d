import { test } from "node:test";
import { assertProblems, devRaw } from "../../support/raw-config";
import { dynamo, kai, P, plane } from "../support";

test("an add-on both installed by the stack and declared installed outside it", () => {
    assertProblems(
        devRaw({
            values: {
                computePlanes: [
                    plane({
                        kaiSchedulerInstalled: true,
                        dynamoOperatorInstalled: true,
                        groveOperatorInstalled: true,
                        addons: { ...kai, ...dynamo },
                    }),
                ],
            },
        }),
        [
            {
                key: `${P}:computePlanes[0].addons.kaiScheduler.enabled`,
                message: "the stack would install a second copy of an add-on declared installed outside it (kaiSchedulerInstalled: true)",
                given: true,
                allowed: "false while kaiSchedulerInstalled is true, or kaiSchedulerInstalled: false",
            },
            {
                key: `${P}:computePlanes[0].addons.dynamoOperator.enabled`,
                message: "the stack would install a second copy of an add-on declared installed outside it (dynamoOperatorInstalled: true)",
                given: true,
                allowed: "false while dynamoOperatorInstalled is true, or dynamoOperatorInstalled: false",
            },
        ],
    );
});
