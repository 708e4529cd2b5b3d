/** Every public property of a component (its outputs) is readonly and says what it is, as pulumi-eks's components do. */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import ts from "typescript";

const ROOT = path.resolve(__dirname, "..");

/** `file` relative to the root: each public property of its ComponentResource classes that is not readonly or has no doc comment. */
function undocumentedOutputs(file: string, text = fs.readFileSync(path.join(ROOT, file), "utf8")): string[] {
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
    const found: string[] = [];
    const visit = (node: ts.Node): void => {
        if (ts.isClassDeclaration(node) && node.heritageClauses?.some((h) => /ComponentResource\b/.test(h.getText()))) {
            for (const member of node.members) {
                if (!ts.isPropertyDeclaration(member)) continue;
                const modifiers = (member.modifiers ?? []).map((m) => m.kind);
                if (modifiers.includes(ts.SyntaxKind.PrivateKeyword) || modifiers.includes(ts.SyntaxKind.ProtectedKeyword)) continue;
                const where = `${file}: ${node.name?.text}.${member.name.getText()}`;
                if (!modifiers.includes(ts.SyntaxKind.ReadonlyKeyword)) found.push(`${where} is not readonly`);
                if (ts.getJSDocCommentsAndTags(member).length === 0) found.push(`${where} has no doc comment`);
            }
        }
        ts.forEachChild(node, visit);
    };
    visit(source);
    return found;
}

function componentFiles(dir: string): string[] {
    return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
        const rel = path.join(dir, e.name);
        return e.isDirectory() ? componentFiles(rel) : e.name.endsWith(".ts") ? [rel] : [];
    });
}

test("every component output is readonly with a doc comment", () => {
    assert.deepEqual(
        componentFiles("components").flatMap((f) => undocumentedOutputs(f)),
        [],
    );
});

test("the check finds a mutable or undocumented output", () => {
    const text = [
        'import * as pulumi from "@pulumi/pulumi";',
        "class Thing extends pulumi.ComponentResource {",
        "    /** Documented. */",
        "    readonly good = 1;",
        "    bare = 2;",
        "    private hidden = 3;",
        "}",
    ].join("\n");
    assert.deepEqual(undocumentedOutputs("thing.ts", text), [
        "thing.ts: Thing.bare is not readonly",
        "thing.ts: Thing.bare has no doc comment",
    ]);
});
