/**
 * Only public APIs of other packages: no file of the program or the commands assigns to a
 * property of something it imports (replacing a function inside @pulumi/pulumi, tsx or Node's
 * modules), so an upgrade of one cannot break a command in a way no test here foresees.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import ts from "typescript";

const ROOT = path.resolve(__dirname, "..");

/** Each `imported.x = ...` (also `imported.x.y`, `imported["x"]`, `Object.defineProperty(imported, ...)`) in `text`. */
function assignmentsToImports(file: string, text: string): string[] {
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
    const imported = new Set<string>();
    const found: string[] = [];
    const rootName = (e: ts.Expression): string | undefined => {
        while (
            ts.isPropertyAccessExpression(e) ||
            ts.isElementAccessExpression(e) ||
            ts.isParenthesizedExpression(e) ||
            ts.isAsExpression(e) ||
            ts.isNonNullExpression(e) ||
            ts.isTypeAssertionExpression(e) ||
            ts.isSatisfiesExpression(e)
        )
            e = e.expression;
        return ts.isIdentifier(e) ? e.text : undefined;
    };
    const visit = (node: ts.Node): void => {
        if (ts.isImportDeclaration(node) && node.importClause) {
            const { name, namedBindings } = node.importClause;
            if (name) imported.add(name.text);
            if (namedBindings && ts.isNamespaceImport(namedBindings)) imported.add(namedBindings.name.text);
            if (namedBindings && ts.isNamedImports(namedBindings)) for (const e of namedBindings.elements) imported.add(e.name.text);
        }
        // `const x = require("...")`
        if (
            ts.isVariableDeclaration(node) &&
            ts.isIdentifier(node.name) &&
            node.initializer &&
            ts.isCallExpression(node.initializer) &&
            ts.isIdentifier(node.initializer.expression) &&
            node.initializer.expression.text === "require"
        ) {
            imported.add(node.name.text);
        }
        ts.forEachChild(node, visit);
    };
    visit(source);
    const check = (node: ts.Node): void => {
        const at = () => `${file}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}: ${node.getText().slice(0, 80)}`;
        if (
            ts.isBinaryExpression(node) &&
            node.operatorToken.kind >= ts.SyntaxKind.FirstAssignment &&
            node.operatorToken.kind <= ts.SyntaxKind.LastAssignment
        ) {
            const left = node.left;
            if ((ts.isPropertyAccessExpression(left) || ts.isElementAccessExpression(left)) && imported.has(rootName(left) ?? ""))
                found.push(at());
        }
        if (
            ts.isCallExpression(node) &&
            /^Object\.(defineProperty|defineProperties|assign|setPrototypeOf)$/.test(node.expression.getText())
        ) {
            const target = node.arguments[0];
            if (target && imported.has(rootName(target) ?? "")) found.push(at());
        }
        ts.forEachChild(node, check);
    };
    check(source);
    return found;
}

test("no file of the program or the commands assigns to what it imports", () => {
    const files = execFileSync("git", ["ls-files", "--", "index.ts", "components", "config", "lib", "scripts", "policies"], {
        cwd: ROOT,
        encoding: "utf8",
    })
        .split("\n")
        .filter((f) => /\.(ts|mts|mjs|cjs)$/.test(f) && !f.startsWith("policies/test/") && fs.existsSync(path.join(ROOT, f)));
    assert.ok(files.length > 100, `${files.length} files`);
    assert.deepEqual(
        files.flatMap((f) => assignmentsToImports(f, fs.readFileSync(path.join(ROOT, f), "utf8"))),
        [],
    );
});

test("the check finds a replaced function of an imported module, and leaves local objects alone", () => {
    const text = [
        'import * as pulumi from "@pulumi/pulumi";',
        'import { Resource } from "@pulumi/pulumi";',
        'const serialize = require("@pulumi/pulumi/runtime/closure/serializeClosure");',
        "pulumi.runtime.setMocks = () => undefined;",
        "(Resource as any).stackTrace = () => [];",
        "serialize.serializeFunction = async () => ({});",
        'Object.defineProperty(pulumi, "x", { value: 1 });',
        "const local = { a: 1 };",
        "local.a = 2;",
    ].join("\n");
    assert.equal(assignmentsToImports("probe.ts", text).length, 4);
});
