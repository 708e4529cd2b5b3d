import { test } from "node:test";
import { assertProblems, devRaw, parse } from "../../support/raw-config";
import { dynamo, grove, kai, P, plane } from "../support";

const topology = { topologyAwareScheduling: { enabled: true, chartsPath: "/srv/nvcf/charts" } };
const needsKai = { given: true, allowed: "false, or addons.kaiScheduler.enabled: true or kaiSchedulerInstalled: true" };

test("the add-on DAG: Grove and the topology need KAI, Dynamo needs Grove", () => {
    assertProblems(devRaw({ values: { computePlanes: [plane({ addons: { ...topology, ...grove, ...dynamo } })] } }), [
        {
            key: `${P}:computePlanes[0].addons.topologyAwareScheduling.enabled`,
            message: "needs the KAI scheduler on the same cluster",
            ...needsKai,
        },
        {
            key: `${P}:computePlanes[0].addons.groveOperator.enabled`,
            message: "needs the KAI scheduler on the same cluster",
            ...needsKai,
        },
    ]);
    assertProblems(devRaw({ values: { computePlanes: [plane({ addons: { ...kai, ...dynamo } })] } }), [
        {
            key: `${P}:computePlanes[0].addons.dynamoOperator.enabled`,
            message: "needs the Grove operator on the same cluster",
            given: true,
            allowed: "false, or addons.groveOperator.enabled: true or groveOperatorInstalled: true",
        },
    ]);
    parse(devRaw({ values: { computePlanes: [plane({ addons: { ...kai, ...grove, ...dynamo, ...topology } })] } }));
});

test("an add-on installed outside the stack satisfies the DAG", () => {
    parse(devRaw({ values: { computePlanes: [plane({ kaiSchedulerInstalled: true, addons: { ...grove, ...topology } })] } }));
    parse(devRaw({ values: { computePlanes: [plane({ kaiSchedulerInstalled: true, groveOperatorInstalled: true, addons: dynamo })] } }));
});
