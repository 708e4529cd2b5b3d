import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { ConfigError, keyPath } from "../config/model/errors";
import { PROJECT } from "../config/model/keys";
import { devConfig, runProgramExpectingError } from "./support/harness";
import { devRaw, parse } from "./support/raw-config";
import { undocumented } from "./support/errors-doc";

// Mutated stack configs, as a careless or hostile user would write them: each is either
// accepted or rejected with a ConfigError naming the mutated key; nothing else is thrown, and
// a few rejected ones run through the whole program to show nothing registers first.

const SEED = 0x5eed_bad1;
const CASES = 400;
const WHOLE_PROGRAM = 6;

/** mulberry32: small, fast, and the same sequence on every machine. */
function prng(seed: number): () => number {
    let a = seed >>> 0;
    return () => {
        a = (a + 0x6d2b79f5) >>> 0;
        let t = a;
        t = Math.imul(t ^ (t >>> 15), t | 1);
        t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
        return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
}

type Json = Record<string, unknown>;

/** Subtrees passed to charts as they are: mutating inside them says nothing about the grammars. */
const FREE = new Set([
    "values",
    "mappingConfig",
    "config",
    "targetAllocator",
    "defaultMonitors",
    "collectorImage",
    "podDisruptionBudget.merge",
    "webhook",
    "service",
    "serviceAccount",
    "podSecurityContext",
    "securityContext",
    "resources",
    "affinity",
    "networkPolicy",
    "mergeConfig",
    "env",
    "crds",
]);

/** Every leaf of a parsed object, as a path. */
function leaves(value: unknown, path: (string | number)[] = []): (string | number)[][] {
    if (Array.isArray(value)) return value.length === 0 ? [[...path, 0]] : value.flatMap((v, i) => leaves(v, [...path, i]));
    if (value && typeof value === "object") {
        return Object.entries(value).flatMap(([k, v]) => (FREE.has(k) ? [] : leaves(v, [...path, k])));
    }
    return [path];
}

/** Sets a value; a missing object on the way is the parsed default's (the user pasted it and changed one key). */
function setAt(root: Json, defaults: unknown, path: readonly (string | number)[], value: unknown): void {
    let node: any = root;
    let fallback: any = defaults;
    for (let i = 0; i < path.length - 1; i++) {
        const part = path[i];
        fallback = fallback?.[part];
        if (node[part] === null || typeof node[part] !== "object") {
            node[part] = fallback && typeof fallback === "object" ? structuredClone(fallback) : typeof path[i + 1] === "number" ? [] : {};
        }
        node = node[part];
    }
    node[path[path.length - 1]] = value;
}

const MUTATIONS: ((old: unknown, r: () => number) => unknown)[] = [
    (old) => `${String(old)}\nkind: Secret`,
    (old) => `${String(old)}\r\nX-Injected: 1`,
    (old) => ` ${String(old)} `,
    (old) => String(old).toUpperCase() + "X",
    () => "a".repeat(64),
    () => `${"a".repeat(64)}.example.com`,
    () => Array.from({ length: 5 }, () => "b".repeat(60)).join("."),
    () => "",
    () => "latest",
    () => "has space",
    () => "bad/key/with/slashes",
    () => "ümlaut",
    () => "\u0000",
    () => -1,
    () => 2 ** 31,
    () => 70000,
    () => 1.5,
    () => null,
    () => true,
    () => ({ nested: "object" }),
    () => ["list"],
    (_old, r) => Math.floor(r() * 1e6),
];

/** The dev stack's structured values, with a compute plane and a release pin, so their keys are fuzzed too. */
function base(): Json {
    return devRaw({
        values: {
            computePlanes: [{ clusterName: "gpu-a", cluster: { sameAsControlPlane: true } }],
            releases: { api: { version: "1.25.2" } },
        },
    }).values as Json;
}

interface Case {
    readonly index: number;
    readonly path: (string | number)[];
    readonly values: Json;
}

function cases(): Case[] {
    const r = prng(SEED);
    const parsed = parse(devRaw({ values: base() }));
    const { secrets: _s, computePlaneKubeconfigNames: _n, ...structured } = parsed;
    const paths = leaves(structured);
    const out: Case[] = [];
    for (let index = 0; index < CASES; index++) {
        const values = structuredClone(base());
        const path = paths[Math.floor(r() * paths.length)];
        let old: unknown = values;
        for (const p of path) old = (old as any)?.[p];
        setAt(values, structured, path, MUTATIONS[Math.floor(r() * MUTATIONS.length)](old, r));
        out.push({ index, path, values });
    }
    return out;
}

/** The stack-config key of a path into the structured values. */
function keyOf(path: readonly (string | number)[]): string {
    return keyPath(`${PROJECT}:${String(path[0])}`, path.slice(1));
}

/** A problem names the mutated key: the key itself, a key inside it, or the object holding it. */
const names = (problemKey: string, key: string) =>
    problemKey === key ||
    problemKey.startsWith(`${key}.`) ||
    problemKey.startsWith(`${key}[`) ||
    key.startsWith(`${problemKey}.`) ||
    key.startsWith(`${problemKey}[`);

describe(`fuzzing the config: ${CASES} mutated stacks, seed 0x${SEED.toString(16)}`, () => {
    const all = cases();
    const rejected: Case[] = [];
    const messages: string[] = [];

    test("every case is accepted, or rejected with a ConfigError naming its key; nothing else is thrown", () => {
        let accepted = 0;
        for (const c of all) {
            const raw = devRaw({ values: c.values });
            // devRaw merges over the dev stack: the mutated values replace it wholesale.
            const exact = { ...raw, values: c.values };
            try {
                parse(exact);
                accepted++;
            } catch (error) {
                assert.ok(error instanceof ConfigError, `case ${c.index} (${keyOf(c.path)}) threw ${String(error)}`);
                const key = keyOf(c.path);
                assert.ok(
                    error.problems.some((p) => names(p.key, key)),
                    `case ${c.index}: no problem names ${key}:\n${error.message}`,
                );
                for (const line of error.message.split("\n").slice(1)) assert.match(line, /^ {2}- nvcf-self-managed:/, `case ${c.index}`);
                rejected.push(c);
                messages.push(...error.problems.map((p) => p.message));
            }
        }
        assert.ok(rejected.length > CASES / 2, `most mutations are rejected (${rejected.length} of ${CASES}, ${accepted} accepted)`);
    });

    test(`${WHOLE_PROGRAM} rejected cases through the whole program: the same error, no resource registered`, async () => {
        const { config, secretKeys } = devConfig();
        const step = Math.max(1, Math.floor(rejected.length / WHOLE_PROGRAM));
        for (const c of rejected.filter((_, i) => i % step === 0).slice(0, WHOLE_PROGRAM)) {
            const stack = { ...config };
            for (const [k, v] of Object.entries(c.values)) if (v !== undefined) stack[`${PROJECT}:${k}`] = v as never;
            const { error, resources } = await runProgramExpectingError(stack, secretKeys);
            assert.match(error.message, /^Invalid stack configuration:/, `case ${c.index}`);
            assert.ok(error.message.includes(keyOf(c.path).split(/[.[]/)[0]), `case ${c.index}: ${error.message}`);
            assert.deepEqual(resources, [], `case ${c.index}: registered ${resources.map((r) => r.urn).join(", ")}`);
        }
    });

    test("every message the rejected cases print has an entry in docs/errors.md", () => {
        assert.ok(messages.length > 0);
        assert.deepEqual(undocumented(messages), []);
    });
});
