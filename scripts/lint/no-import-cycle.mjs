/**
 * ESLint rule `local/no-import-cycle`: an import (static, dynamic or `require`) of a file of
 * this repository from which the importing file can be reached again. A cycle makes a module's
 * exports undefined while the other one loads, and it means two files cannot be read, changed or
 * moved apart. Type-only imports count too: they tie the files' designs together just the same.
 *
 * The graph is read with TypeScript's own import scanner (`ts.preProcessFile`), which sees every
 * form of import, and kept for the run: ESLint lints each file once.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import ts from "typescript";

const EXTENSIONS = [".ts", ".mts", ".cts", ".mjs", ".cjs", ".js"];

/** The repository file a relative specifier names, or undefined (a package, or not a file here). */
function resolveSpecifier(from, specifier) {
    if (!specifier.startsWith(".")) return undefined;
    const base = path.resolve(path.dirname(from), specifier);
    const candidates = [base, ...EXTENSIONS.map((e) => base + e), ...EXTENSIONS.map((e) => path.join(base, `index${e}`))];
    return candidates.find((file) => fs.existsSync(file) && fs.statSync(file).isFile());
}

const edges = new Map();

/** The repository files `file` (an absolute path) imports, in any form, as absolute paths. */
export function importsOf(file) {
    let found = edges.get(file);
    if (found) return found;
    found = [];
    if (!file.includes(`${path.sep}node_modules${path.sep}`)) {
        const { importedFiles } = ts.preProcessFile(fs.readFileSync(file, "utf8"), true, true);
        for (const { fileName } of importedFiles) {
            const target = resolveSpecifier(file, fileName);
            if (target && !found.includes(target)) found.push(target);
        }
    }
    edges.set(file, found);
    return found;
}

/** The shortest chain of imports from `start` back to `goal`, or undefined when there is none. */
function pathBack(start, goal) {
    const cameFrom = new Map([[start, undefined]]);
    for (let queue = [start]; queue.length > 0;) {
        const next = [];
        for (const file of queue) {
            for (const target of importsOf(file)) {
                if (cameFrom.has(target)) continue;
                cameFrom.set(target, file);
                if (target === goal) {
                    const chain = [];
                    for (let at = target; at !== undefined; at = cameFrom.get(at)) chain.unshift(at);
                    return chain;
                }
                next.push(target);
            }
        }
        queue = next;
    }
    return undefined;
}

/** @type {import("eslint").Rule.RuleModule} */
export const noImportCycle = {
    meta: {
        type: "problem",
        docs: { description: "no import cycle between files of the repository" },
        schema: [],
        messages: { cycle: "import cycle: {{chain}}" },
    },
    create(context) {
        const file = path.resolve(context.filename);
        const root = context.cwd;
        const check = (node, source) => {
            if (!source || source.type !== "Literal" || typeof source.value !== "string") return;
            const target = resolveSpecifier(file, source.value);
            if (!target) return;
            const chain = target === file ? [file] : pathBack(target, file);
            if (!chain) return;
            const shown = [file, ...chain].map((f) => path.relative(root, f)).join(" -> ");
            context.report({ node, messageId: "cycle", data: { chain: shown } });
        };
        return {
            ImportDeclaration: (node) => check(node, node.source),
            ExportNamedDeclaration: (node) => check(node, node.source),
            ExportAllDeclaration: (node) => check(node, node.source),
            ImportExpression: (node) => check(node, node.source),
            CallExpression: (node) => {
                if (node.callee.type === "Identifier" && node.callee.name === "require") check(node, node.arguments[0]);
            },
        };
    },
};
