/**
 * What the mock engine relies on beyond @pulumi/pulumi's public API (scripts/lib/sdk-internals.ts).
 * After an SDK upgrade, a failure here names what was removed or renamed; the render would
 * otherwise come out empty or quietly wrong.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, test } from "node:test";
import { runProgram } from "../scripts/lib/mock-engine";
import { isSecretAt } from "../scripts/lib/secret-envelope";
import { READ_GETTERS, REGISTER_GETTERS } from "../scripts/lib/sdk-internals";

const PROBE = path.join(__dirname, "fixtures", "sdk-probe");
const SDK_VERSION: string = require("@pulumi/pulumi/package.json").version;

/** The names in `names` that `target` has no function for. */
function missing(target: Record<string, unknown>, names: readonly string[]): string[] {
    return names.filter((name) => typeof target[name] !== "function");
}

/** `name` is a function of `target` that an assignment replaces (a writable property), as the engine does. */
function assertReplaceable(target: Record<string, unknown>, name: string, where: string): void {
    assert.deepEqual(missing(target, [name]), [], `${name} gone from ${where}`);
    assert.equal(Object.getOwnPropertyDescriptor(target, name)?.writable, true, `${name} of ${where} is no longer writable`);
}

describe(`the SDK internals the mock engine uses (@pulumi/pulumi ${SDK_VERSION})`, () => {
    test("runtime/settings exports getMonitor and waitForRPCs", () => {
        const settings = require("@pulumi/pulumi/runtime/settings") as Record<string, unknown>;
        assert.deepEqual(missing(settings, ["getMonitor", "waitForRPCs"]), [], "functions gone from @pulumi/pulumi/runtime/settings");
    });

    test("the mock monitor has the three methods the engine wraps", () => {
        const { MockMonitor } = require("@pulumi/pulumi/runtime/mocks") as { MockMonitor?: { prototype: Record<string, unknown> } };
        assert.ok(MockMonitor, "@pulumi/pulumi/runtime/mocks no longer exports MockMonitor");
        assert.deepEqual(
            missing(MockMonitor.prototype, ["registerResource", "readResource", "registerResourceOutputs"]),
            [],
            "methods gone from the SDK's MockMonitor",
        );
    });

    test("the requests and responses have the getters the engine reads", () => {
        const pb = require("@pulumi/pulumi/proto/resource_pb") as Record<string, { prototype: Record<string, unknown> } | undefined>;
        const getters: Record<string, readonly string[]> = {
            RegisterResourceRequest: REGISTER_GETTERS,
            ReadResourceRequest: READ_GETTERS,
            RegisterResourceResponse: ["getUrn"],
            ReadResourceResponse: ["getUrn"],
        };
        for (const [message, names] of Object.entries(getters)) {
            const type = pb[message];
            assert.ok(type, `@pulumi/pulumi/proto/resource_pb no longer exports ${message}`);
            assert.deepEqual(missing(type.prototype, names), [], `getters gone from ${message}`);
        }
    });

    test("runtime/closure/serializeClosure exports serializeFunction as a replaceable property (the providers' code cache wraps it)", () => {
        assertReplaceable(
            require("@pulumi/pulumi/runtime/closure/serializeClosure"),
            "serializeFunction",
            "runtime/closure/serializeClosure",
        );
        // The dynamic resources look it up on the module at each call (test/closure-cache.test.ts sees a cached text arrive).
        const dynamic = fs.readFileSync(require.resolve("@pulumi/pulumi/dynamic"), "utf8");
        assert.match(dynamic, /require\("\.\.\/runtime\/closure\/serializeClosure"\)[\s\S]*sc\.serializeFunction\(/);
    });

    test("runtime/debuggable exports debuggablePromise as a replaceable property, which the runtime looks up at each call", () => {
        assertReplaceable(require("@pulumi/pulumi/runtime/debuggable"), "debuggablePromise", "runtime/debuggable");
        // Each runtime module that calls it holds the module, not the function (the probe's run below sees the replacement).
        for (const file of ["resource", "rpc", "settings", "invoke", "callbacks"]) {
            const text = fs.readFileSync(require.resolve(`@pulumi/pulumi/runtime/${file}`), "utf8");
            const uses = text.match(/\bdebuggablePromise\b/g)?.length ?? 0;
            const throughModule = text.match(/\bdebuggable_1\.debuggablePromise\(/g)?.length ?? 0;
            assert.ok(
                uses > 0 && uses === throughModule,
                `runtime/${file}.js: ${throughModule} of ${uses} uses of debuggablePromise go through the module`,
            );
        }
    });

    test("Resource's constructor takes its source position from its static stackTrace, a replaceable property", () => {
        assertReplaceable(require("@pulumi/pulumi").Resource, "stackTrace", "the Resource class");
        const text = fs.readFileSync(require.resolve("@pulumi/pulumi/resource"), "utf8");
        assert.match(text, /const stackTrace = Resource\.stackTrace\(\d+\);/, "the constructor no longer calls Resource.stackTrace");
    });

    test("Error.stackTraceLimit and process.setSourceMapsEnabled/sourceMapsEnabled exist", () => {
        assert.equal(typeof Error.stackTraceLimit, "number");
        assert.equal(typeof process.setSourceMapsEnabled, "function");
        assert.equal(typeof process.sourceMapsEnabled, "boolean");
    });
});

describe("the mock engine on a probe program (test/fixtures/sdk-probe)", () => {
    test("records every kind of registration with what the engine would see", async () => {
        const run = await runProgram({}, [], "probe", PROBE);
        const byName = Object.fromEntries(run.resources.map((r) => [r.name, r]));
        assert.deepEqual(Object.keys(byName).sort(), ["existing", "explicit", "first", "group", "second"]);
        const { group, explicit, first, second, existing } = byName;

        const urn = (type: string, name: string) => `urn:pulumi:probe::sdk-probe::${type}::${name}`;
        assert.equal(group.urn, urn("probe:index:Group", "group"));
        assert.equal(group.custom, false);
        assert.equal(explicit.urn, urn("pulumi:providers:probe", "explicit"));
        assert.equal(explicit.custom, true);

        assert.deepEqual(
            {
                urn: first.urn,
                parent: first.parent,
                provider: first.provider,
                custom: first.custom,
                retainOnDelete: first.retainOnDelete,
                deleteBeforeReplace: first.deleteBeforeReplace,
                inputs: first.inputs,
            },
            {
                urn: urn("probe:index:Group$probe:index:Thing", "first"),
                parent: group.urn,
                provider: `${explicit.urn}::explicit-id`,
                custom: true,
                retainOnDelete: true,
                deleteBeforeReplace: true,
                inputs: { plain: "visible", hidden: "hidden-value" },
            },
        );
        assert.ok(isSecretAt(first.rawInputs, ["hidden"]), "the secret input lost its envelope");
        assert.ok(!isSecretAt(first.rawInputs, ["plain"]));

        assert.equal(second.retainOnDelete, false);
        assert.deepEqual(second.dependencies, [first.urn]);
        assert.deepEqual(second.inputs, { fromFirst: "first-id" });

        assert.deepEqual({ custom: existing.custom, inputs: existing.inputs }, { custom: true, inputs: { key: "k", id: "existing-id" } });
        assert.equal(run.outputs.answer, 42);
    });

    test("stack traces, source positions, source maps and promise leak tracking are off during a run only", async () => {
        const limit = Error.stackTraceLimit;
        const sourceMaps = process.sourceMapsEnabled;
        const debuggable = require("@pulumi/pulumi/runtime/debuggable") as {
            debuggablePromise: (p: Promise<unknown>, ctx: string) => Promise<unknown>;
        };
        const tracked = (): boolean => {
            const promise = Promise.resolve();
            return debuggable.debuggablePromise(promise, "probe") !== promise;
        };
        try {
            Error.stackTraceLimit = 17;
            process.setSourceMapsEnabled(true);
            assert.ok(tracked(), "outside a run, the SDK's debuggablePromise no longer returns a tracking promise");
            const run = await runProgram({}, [], "probe-restore", PROBE);
            assert.deepEqual(run.outputs, {
                answer: 42,
                stackTraceLimit: 0,
                sourceMapsEnabled: false,
                promisesTracked: false,
                resourceStackFrames: 0,
            });
            assert.equal(Error.stackTraceLimit, 17);
            assert.equal(process.sourceMapsEnabled, true);
            assert.ok(tracked(), "promise leak tracking is still off after the run");
            const resource = require("@pulumi/pulumi").Resource as { stackTrace(skip: number): unknown[] };
            assert.ok(resource.stackTrace(0).length > 0, "resources' source positions are still off after the run");
        } finally {
            Error.stackTraceLimit = limit;
            process.setSourceMapsEnabled(sourceMaps);
        }
    });
});
