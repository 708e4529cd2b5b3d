import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { deepMerge } from "../config/model/deep-merge";
import { validRouterAddress } from "../config/model/router-address";
import { CATALOG, PHASES } from "../components/catalog/control-plane";
import { installOrder, releaseDependencies } from "../components/control-plane/ordering";

describe("deepMerge (an environment over base.yaml, a release's values block over the built values)", () => {
    test("maps merge key by key, the override wins on leaves", () => {
        assert.deepEqual(deepMerge({ a: { b: 1, c: 2 }, d: 3 }, { a: { c: 9 } }), { a: { b: 1, c: 9 }, d: 3 });
    });
    test("lists replace whole, as Helm does", () => {
        assert.deepEqual(deepMerge({ env: [{ name: "A" }, { name: "B" }] }, { env: [{ name: "C" }] }), { env: [{ name: "C" }] });
    });
    test("a null is kept so Helm drops the chart default", () => {
        assert.deepEqual(deepMerge({ a: { b: 1 } }, { a: null }), { a: null });
    });
    test("the inputs are not modified", () => {
        const base = { a: { b: 1 } };
        deepMerge(base, { a: { b: 2 } });
        assert.deepEqual(base, { a: { b: 1 } });
    });
});

describe("the LLM request-router address check of global.yaml.gotmpl", () => {
    for (const ok of [
        "llm-request-router.nvcf.svc.cluster.local:50071",
        "router:1",
        "router:65535",
        "10.0.0.7:50071",
        "[::1]:50071",
        "[2001:db8::1]:443",
        "[::ffff:192.0.2.1]:8080",
    ]) {
        test(`accepts ${ok}`, () => assert.equal(validRouterAddress(ok), true));
    }
    for (const bad of [
        "router",
        "router:0",
        "router:65536",
        "router:123456",
        ":50071",
        "-router:50071",
        "router-:50071",
        "http://router:50071",
        "router:50071/path",
        "[::1]",
        "::1:50071",
        "[:::1]:50071",
        "[1::2::3]:50071",
        "[2001:db8::1::]:50071",
        "[12345::1]:50071",
        "999.1.1.1:50071",
        "router :50071",
    ]) {
        test(`rejects ${bad}`, () => assert.equal(validRouterAddress(bad), false));
    }
});

describe("release ordering derived from the catalog", () => {
    test("every need names a catalog release, in the same or an earlier file", () => {
        const phase = new Map(CATALOG.map((e) => [e.name, PHASES.indexOf(e.phase)]));
        for (const entry of CATALOG) {
            for (const { release: need, why } of entry.needs) {
                assert.ok(phase.has(need), `${entry.name} needs unknown ${need}`);
                assert.ok(phase.get(need)! <= phase.get(entry.name)!, `${entry.name} needs later ${need}`);
                assert.ok(why.trim().length > 0, `${entry.name} needs ${need} without a reason`);
            }
        }
    });
    test("the install order puts each release after what it waits for", () => {
        const deps = releaseDependencies(CATALOG);
        const order = installOrder(CATALOG, deps).map((e) => e.name);
        assert.equal(order.length, CATALOG.length);
        for (const [name, ds] of deps) for (const d of ds) assert.ok(order.indexOf(d) < order.indexOf(name), `${d} before ${name}`);
    });
    test("a cycle is reported, not looped on", () => {
        const a = { ...CATALOG[5], name: "a", needs: [{ release: "b", why: "test" }] };
        const b = { ...CATALOG[5], name: "b", needs: [{ release: "a", why: "test" }] };
        assert.throws(() => installOrder([a, b], releaseDependencies([a, b])), /cycle/);
    });
    test("release names are unique", () => {
        assert.equal(new Set(CATALOG.map((e) => e.name)).size, CATALOG.length);
    });
});
