import * as assert from "node:assert/strict";
import { describe, test } from "node:test";
import { changedInputs, defineProvider, UNKNOWN_INPUT, type ProviderSpec } from "../components/providers/kit";

interface Inputs {
    readonly name: string;
    readonly size: number;
    readonly force?: boolean;
}
interface Outputs extends Inputs {
    readonly token?: string;
}

/** A provider of the kit with `spec`'s parts over a minimal one. */
function provider(spec: Partial<ProviderSpec<Inputs, Outputs>> = {}) {
    const Provider = defineProvider<Inputs, Outputs>({
        describe: (inputs) => `the widget ${inputs.name}`,
        secrets: ["openbaoToken"],
        id: (inputs) => inputs.name,
        create: async (inputs, ctx) => ({ ...inputs, token: ctx.secret("openbaoToken") }),
        ...spec,
    });
    return new Provider();
}

const configured = async (p: ReturnType<typeof provider>, config: Record<string, string>) => {
    await p.configure({ config: new Map(Object.entries(config)) } as never);
    return p;
};

describe("the dynamic-resource kit", () => {
    test("a declared secret is read under the project's namespace in configure; empty counts as unset", async () => {
        const read = async (config: Record<string, string>) =>
            (await (await configured(provider(), config)).create({ name: "a", size: 1 })).outs!.token;
        assert.equal(await read({ "nvcf-self-managed:openbaoToken": "t" }), "t");
        assert.equal(await read({ "nvcf-self-managed:openbaoToken": "" }), undefined);
        assert.equal(await read({ "other:openbaoToken": "t" }), undefined);
    });

    test("changed inputs ignore the engine's __provider and compare values, not identity or key order", () => {
        const olds = { a: 1, b: { c: [1, 2], d: "x" }, __provider: "old code" };
        assert.deepEqual(changedInputs(olds, { a: 1, b: { d: "x", c: [1, 2] }, __provider: "new code" }), []);
        assert.deepEqual(changedInputs(olds, { a: 2, b: { c: [1, 2], d: "x" }, __provider: "old code" }), ["a"]);
        assert.deepEqual(changedInputs({ a: 1 }, { a: 1, d: "new" }), ["d"]);
    });

    test("the diff: a declared input is a change, a replacing one a replacement, an ignored one nothing; changes is asked only when none changed", async () => {
        const asked: string[] = [];
        const p = provider({
            replaces: ["name"],
            ignores: ["force"],
            changes: async (olds) => {
                asked.push(olds.name);
                return olds.size > 5;
            },
        });
        const olds: Outputs = { name: "a", size: 1 };
        assert.deepEqual(await p.diff("a", olds, { name: "b", size: 1 }), { changes: true, replaces: ["name"], deleteBeforeReplace: true });
        assert.deepEqual(await p.diff("a", olds, { name: "a", size: 2 }), { changes: true });
        assert.deepEqual(asked, []);
        assert.deepEqual(await p.diff("a", olds, { name: "a", size: 1, force: true }), { changes: false });
        assert.deepEqual(await p.diff("a", { name: "a", size: 9 }, { name: "a", size: 9 }), { changes: true });
        assert.deepEqual(asked, ["a", "a"]);
    });

    test("with unknownIsChange a preview with an unknown input is a change without asking; the provider's own code is not an unknown", async () => {
        let asked = 0;
        const p = provider({ unknownIsChange: true, changes: async () => (asked++, false) });
        const news = { name: "a", size: 1, __provider: `code mentioning ${UNKNOWN_INPUT}` } as Inputs;
        assert.deepEqual(await p.diff("a", { name: "a", size: 1 }, news), { changes: false });
        assert.equal(asked, 1);
        const unknown = { name: UNKNOWN_INPUT, size: 1 } as Inputs;
        assert.deepEqual(await p.diff("a", unknown, unknown), { changes: true });
        assert.equal(asked, 1);
    });

    test("a failure names the resource and the operation, unless its message already names it; a hint goes first", async () => {
        const failing = (message: string) =>
            provider({
                operations: { delete: "deregister" },
                hint: (err) => (/403/.test(String(err)) ? "the token lacks the scope. " : ""),
                create: async () => {
                    throw new Error(message);
                },
                delete: async () => {
                    throw new Error(message);
                },
            });
        await assert.rejects(failing("HTTP 503").create({ name: "a", size: 1 }), { message: "the widget a (create) failed: HTTP 503" });
        await assert.rejects(failing("HTTP 403").delete("a", { name: "a", size: 1 }), {
            message: "the widget a (deregister) failed: the token lacks the scope. HTTP 403",
        });
        await assert.rejects(failing("the widget a is stuck: do X").create({ name: "a", size: 1 }), {
            message: "the widget a is stuck: do X",
        });
        const update = failing("boom");
        await assert.rejects(
            update.update("a", { name: "a", size: 1 }, { name: "a", size: 2 }),
            /^Error: the widget a \(update\) failed: boom$/,
        );
    });

    test("read keeps the state unless told; an import is refused with the resource's own words; gone is an empty ID", async () => {
        const kept = provider({ importRefused: "importing a widget is not supported; declare it instead" });
        assert.deepEqual(await kept.read("a", { name: "a", size: 1 }), { id: "a", props: { name: "a", size: 1 } });
        await assert.rejects(kept.read("a"), { message: "importing a widget is not supported; declare it instead" });
        const gone = provider({ read: async () => undefined });
        assert.deepEqual(await gone.read("a", { name: "a", size: 1 }), { id: "", props: undefined });
    });
});
