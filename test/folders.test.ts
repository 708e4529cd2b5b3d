/**
 * The folders say what they hold and depend one way: no folder of the program or the commands
 * imports a file of a folder that imports back (directly or through others), and none imports
 * from a folder above its own. The file-level cycles are the lint rule's (scripts/lint/no-import-cycle.mjs).
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, test } from "node:test";
import { importsOf } from "../scripts/lint/no-import-cycle.mjs";

const ROOT = path.resolve(__dirname, "..");

/** Import edges between the given files (repository-relative), as the lint rule reads them. */
function edges(files: readonly string[]): [string, string][] {
    const known = new Set(files);
    return files.flatMap((file) =>
        importsOf(path.join(ROOT, file))
            .map((target) => path.relative(ROOT, target))
            .filter((target) => known.has(target))
            .map((target): [string, string] => [file, target]),
    );
}

/** The folder cycles (each as its folders, sorted) and the imports from a folder above the importer's. */
function folderProblems(fileEdges: readonly [string, string][]): { cycles: string[][]; upward: string[] } {
    const graph = new Map<string, Set<string>>();
    const upward: string[] = [];
    for (const [from, to] of fileEdges) {
        const a = path.dirname(from);
        const b = path.dirname(to);
        if (a === b) continue;
        if (!graph.has(a)) graph.set(a, new Set());
        graph.get(a)!.add(b);
        if (`${a}/`.startsWith(`${b}/`) || b === ".") upward.push(`${from} -> ${to}`);
    }
    // Tarjan's strongly connected components: a component of more than one folder is a cycle.
    let index = 0;
    const stack: string[] = [];
    const on = new Set<string>();
    const idx = new Map<string, number>();
    const low = new Map<string, number>();
    const cycles: string[][] = [];
    const connect = (v: string): void => {
        idx.set(v, index);
        low.set(v, index++);
        stack.push(v);
        on.add(v);
        for (const w of graph.get(v) ?? []) {
            if (!idx.has(w)) {
                connect(w);
                low.set(v, Math.min(low.get(v)!, low.get(w)!));
            } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
        }
        if (low.get(v) === idx.get(v)) {
            const component: string[] = [];
            for (let w = stack.pop()!; ; w = stack.pop()!) {
                on.delete(w);
                component.push(w);
                if (w === v) break;
            }
            if (component.length > 1) cycles.push(component.sort());
        }
    };
    for (const v of graph.keys()) if (!idx.has(v)) connect(v);
    return { cycles, upward };
}

describe("folders", () => {
    test("the program's and the commands' folders depend one way, never on a folder above their own", () => {
        const files = execFileSync("git", ["ls-files", "--", "*.ts", "*.mjs"], { cwd: ROOT, encoding: "utf8" })
            .split("\n")
            .filter((f) => f && !f.startsWith("test/") && !f.startsWith("policies/test/") && fs.existsSync(path.join(ROOT, f)));
        assert.ok(files.length > 100, `${files.length} files`);
        const problems = folderProblems(edges(files));
        assert.deepEqual(problems, { cycles: [], upward: [] });
    });

    test("a cycle through three folders and an import from a folder above are found", () => {
        const problems = folderProblems([
            ["a/x.ts", "b/y.ts"],
            ["b/y.ts", "c/z.ts"],
            ["c/z.ts", "a/w.ts"],
            ["d/e/f.ts", "d/g.ts"],
        ]);
        assert.deepEqual(problems, { cycles: [["a", "b", "c"]], upward: ["d/e/f.ts -> d/g.ts"] });
    });
});
