import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { longestChain } from "../components/control-plane/ordering";
import { HELM_RELEASE, type RenderedResource } from "../scripts/lib/rendered";
import { longestWaitingChain } from "../scripts/lib/waiting-chain";

const resource = (name: string, type: string, dependsOn: string[] = [], extra: Partial<RenderedResource> = {}): RenderedResource => ({
    urn: name,
    type,
    name,
    parent: null,
    provider: null,
    dependsOn,
    inputs: {},
    ...extra,
});
const helm = (name: string, dependsOn: string[] = [], skipAwait = false) =>
    resource(name, HELM_RELEASE, dependsOn, { inputs: { skipAwait } });
const stack = (resources: RenderedResource[]) => ({ stack: "s", project: "p", resources });

describe("the longest chain", () => {
    test("of a dependency map: first to last; by weight when given", () => {
        const deps = new Map([
            ["a", []],
            ["b", ["a"]],
            ["c", ["b"]],
            ["d", []],
            ["e", ["d"]],
        ]);
        assert.deepEqual(longestChain(deps), ["a", "b", "c"]);
        assert.deepEqual(
            longestChain(deps, (n) => (n === "d" ? 10 : 1)),
            ["d", "e"],
        );
        assert.deepEqual(longestChain(new Map()), []);
    });

    test("of a render: only steps that wait for workloads count, through the ones that do not", () => {
        const r = stack([
            helm("nats"),
            resource("secret", "kubernetes:core/v1:Secret", ["nats"]),
            helm("openbao", ["secret"]),
            helm("fast", ["openbao"], true),
            resource("gate", "pulumi-nodejs:dynamic/nvcf:HealthGate", ["fast"]),
            resource("preflight", "pulumi-nodejs:dynamic/nvcf:Preflight", ["gate"]),
        ]);
        assert.deepEqual(longestWaitingChain(r), ["nats", "openbao", "gate"]);
    });

    test("a dependency on a component waits for everything under it", () => {
        const r = stack([
            resource("plane", "nvcf:control-plane:ControlPlane"),
            helm("a", [], false),
            helm("b", ["a"]),
            resource("registration", "pulumi-nodejs:dynamic/nvcf:ClusterRegistration", ["plane"]),
            helm("operator", ["registration"]),
        ]).resources.map((x) => (x.name === "a" || x.name === "b" ? { ...x, parent: "plane" } : x));
        assert.deepEqual(longestWaitingChain(stack(r)), ["a", "b", "operator"]);
    });
});
