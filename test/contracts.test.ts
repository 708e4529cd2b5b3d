/**
 * docs/contracts.md is the list of what the program assumes of systems it does not own. Every
 * constant of a contract (lib/<system>/contract.ts, lib/contracts/*.ts) has its row there (same
 * name, same value), and every row names its upstream source and a test file that holds the
 * program to it.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, test } from "node:test";

const ROOT = path.resolve(__dirname, "..");
const LIB = path.join(ROOT, "lib");
const DOC = path.join(ROOT, "docs", "contracts.md");

interface Row {
    readonly id: string;
    readonly value: string;
    readonly source: string;
    readonly tests: string[];
    readonly line: number;
}

/** The rows of every table whose first column is an id in backticks. */
function rows(text: string): Row[] {
    const out: Row[] = [];
    text.split("\n").forEach((line, i) => {
        const cells = line
            .split(/(?<!\\)\|/)
            .slice(1, -1)
            .map((c) => c.trim());
        if (cells.length !== 4 || !/^`[^`]+`$/.test(cells[0])) return;
        const unquote = (c: string) => c.replace(/^`|`$/g, "");
        out.push({
            id: unquote(cells[0]),
            value: unquote(cells[1]).replace(/\\\|/g, "|"),
            source: cells[2],
            tests: cells[3]
                .split(/[\s,]+/)
                .filter(Boolean)
                .map(unquote),
            line: i + 1,
        });
    });
    return out;
}

/**
 * The contract files by module name, the first part of a row's id: a system's own contract
 * (lib/<system>/contract.ts, named for its folder) and those of systems without a folder in lib/
 * (lib/contracts/<module>.ts).
 */
function contracts(): Map<string, string> {
    const out = new Map<string, string>();
    const add = (mod: string, file: string) => {
        assert.ok(!out.has(mod), `two contracts named ${mod}: ${out.get(mod)} and ${file}`);
        out.set(mod, file);
    };
    for (const dir of fs.readdirSync(LIB, { withFileTypes: true }).filter((e) => e.isDirectory())) {
        const file = path.join(LIB, dir.name, "contract.ts");
        if (fs.existsSync(file)) add(dir.name, file);
    }
    for (const file of fs.readdirSync(path.join(LIB, "contracts")).filter((f) => f.endsWith(".ts")))
        add(file.replace(/\.ts$/, ""), path.join(LIB, "contracts", file));
    return out;
}

/** `<module>.<EXPORT>[.<key>...]` of every exported value (functions and types have no value). */
function leaves(): Map<string, string> {
    const out = new Map<string, string>();
    const walk = (id: string, v: unknown) => {
        if (Array.isArray(v)) out.set(id, v.join(", "));
        else if (v !== null && typeof v === "object") for (const [k, x] of Object.entries(v)) walk(`${id}.${k}`, x);
        else if (typeof v === "string" || typeof v === "number") out.set(id, String(v));
    };
    for (const [id, file] of contracts()) {
        const mod = require(file) as Record<string, unknown>;
        for (const [name, v] of Object.entries(mod)) if (typeof v !== "function") walk(`${id}.${name}`, v);
    }
    return out;
}

/** A test file's text and that of the test/support modules it imports (its fakes answer for it). */
function withSupport(file: string): string {
    const text = fs.readFileSync(file, "utf8");
    const support = [...text.matchAll(/from "(\.\.?\/(?:\.\.\/)?support\/[^"]+|\.\/support\/[^"]+)"/g)].map((m) =>
        path.resolve(path.dirname(file), `${m[1]}.ts`),
    );
    return [text, ...support.filter((f) => fs.existsSync(f)).map((f) => fs.readFileSync(f, "utf8"))].join("\n");
}

const doc = fs.readFileSync(DOC, "utf8");
const table = rows(doc);

describe("docs/contracts.md and the contracts in lib/", () => {
    test("every constant has its row, with the same value", () => {
        const byId = new Map(table.map((r) => [r.id, r]));
        const missing: string[] = [];
        for (const [id, value] of leaves()) {
            const row = byId.get(id);
            if (!row) missing.push(`${id} (${value})`);
            else assert.equal(row.value, value, `docs/contracts.md:${row.line}: ${id}`);
        }
        assert.deepEqual(missing, [], "constants of the contracts without a row in docs/contracts.md");
    });

    test("a row that names a constant, a type or a function of a contract names one that exists", () => {
        const values = leaves();
        const modules = contracts();
        for (const row of table) {
            const [mod, name] = row.id.split(".");
            if (!modules.has(mod)) continue;
            const source = fs.readFileSync(modules.get(mod)!, "utf8");
            const declared = new RegExp(`export (interface|type|function|const) ${name}\\b`).test(source);
            assert.ok(
                values.has(row.id) || (declared && !row.id.includes(".", mod.length + name.length + 1)),
                `docs/contracts.md:${row.line}: ${row.id}`,
            );
        }
    });

    test("every row names where upstream defines it and a test file that exists and uses it", () => {
        assert.ok(table.length > 40, `rows found: ${table.length}`);
        const unused: string[] = [];
        for (const row of table) {
            assert.ok(row.source.length >= 10, `docs/contracts.md:${row.line}: ${row.id} has no upstream source`);
            assert.ok(row.tests.length > 0, `docs/contracts.md:${row.line}: ${row.id} names no test`);
            for (const t of row.tests) {
                const file = path.join(ROOT, t);
                if (!/\.test\.ts$/.test(t) || !fs.existsSync(file)) {
                    unused.push(`docs/contracts.md:${row.line}: ${t} is not a test file`);
                    continue;
                }
                const name = row.id.split(".").slice(1, 2)[0] ?? row.id;
                const text = withSupport(file);
                if (!text.includes(name) && !text.includes(row.value) && !text.includes(row.id))
                    unused.push(`docs/contracts.md:${row.line}: ${t} mentions neither ${name} nor ${JSON.stringify(row.value)}`);
            }
        }
        assert.deepEqual(unused, []);
    });
});

describe("no check reaches an outside system at a place the contract does not list", () => {
    test("every OpenBao API path the program and commands use is one of OPENBAO_API's", () => {
        const { OPENBAO_API } = require("../lib/openbao/contract") as { OPENBAO_API: Record<string, string> };
        const known = Object.values(OPENBAO_API);
        const files = (dir: string): string[] =>
            fs
                .readdirSync(path.join(ROOT, dir), { withFileTypes: true })
                .flatMap((e) => (e.isDirectory() ? files(path.join(dir, e.name)) : e.name.endsWith(".ts") ? [path.join(dir, e.name)] : []));
        const unknown: string[] = [];
        for (const file of [...files("components"), ...files("lib"), ...files("scripts")]) {
            const code = fs
                .readFileSync(path.join(ROOT, file), "utf8")
                .split("\n")
                .filter((l) => !/^\s*(\*|\/\/|\/\*)/.test(l))
                .join("\n");
            for (const m of code.matchAll(/["'`](?:\/v1\/)?(sys\/[a-z0-9/_-]+)/g)) {
                if (!known.some((k) => m[1] === k || m[1].startsWith(`${k}/`))) unknown.push(`${file}: ${m[1]}`);
            }
        }
        assert.deepEqual(unknown, [], "OpenBao paths without a row (add them to OPENBAO_API and docs/contracts.md)");
    });

    test("the e2e suite builds the kubernetes provider version the program declares", () => {
        const { KUBERNETES_PROVIDER_VERSION } = require("../lib/contracts/pulumi-state") as { KUBERNETES_PROVIDER_VERSION: string };
        const script = fs.readFileSync(path.join(ROOT, "scripts", "e2e", "build-tools.sh"), "utf8");
        assert.equal(/^K8S_PROVIDER_VERSION=\$\{K8S_PROVIDER_VERSION:-([^}]+)\}/m.exec(script)?.[1], KUBERNETES_PROVIDER_VERSION);
        const provider = fs.readFileSync(path.join(ROOT, "components", "kubernetes", "provider.ts"), "utf8");
        assert.match(provider, /version: KUBERNETES_PROVIDER_VERSION/);
    });
});
