import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";

/** The project's root, where the engine's provider host runs and provider files are named from. */
const PROJECT_ROOT = path.resolve(__dirname, "../..");

// Regular expressions, not the import-cycle lint rule's scanner: the program imports nothing from scripts/.
// A value import or re-export (`import type` and `export type` are left out: they run nothing),
// a side-effect import, a dynamic import or a require, of a file of this project.
const VALUE_IMPORT = /\b(?:import|export)\s+(type\s)?[^;]*?\bfrom\s*["'](\.[^"']*)["']/g;
const BARE_IMPORT = /(?:\bimport\s*|\bimport\s*\(\s*|\brequire\s*\(\s*)["'](\.[^"']*)["']/g;

/**
 * The sha256 of a provider file and every project file it imports, directly or through others,
 * as text: a provider's resources carry it, so a change to the code a provider runs (and only to
 * that code) is a change to their inputs, shown by `npm run plan-diff`.
 */
export function codeDigest(file: string, root: string = PROJECT_ROOT): string {
    const hash = createHash("sha256");
    for (const source of importClosure(path.resolve(root, file)))
        hash.update(`${path.relative(root, source).split(path.sep).join("/")}\n${sourceOf(source).text}\n`);
    return hash.digest("hex");
}

/** `file` and the project files it imports, sorted. */
export function importClosure(file: string): string[] {
    const seen = new Set<string>();
    const visit = (at: string): void => {
        if (seen.has(at)) return;
        seen.add(at);
        for (const target of sourceOf(at).imports) visit(target);
    };
    visit(file);
    return [...seen].sort();
}

/** A file's text and the project files it imports, read once per process: providers share most of theirs. */
const sources = new Map<string, { readonly text: string; readonly imports: readonly string[] }>();

function sourceOf(file: string): { readonly text: string; readonly imports: readonly string[] } {
    const cached = sources.get(file);
    if (cached) return cached;
    const text = fs.readFileSync(file, "utf8");
    const specifiers = [
        ...[...text.matchAll(VALUE_IMPORT)].filter((m) => !m[1]).map((m) => m[2]),
        ...[...text.matchAll(BARE_IMPORT)].map((m) => m[1]),
    ];
    const imports = [...new Set(specifiers.map((s) => resolveSource(file, s)).filter((f): f is string => f !== undefined))];
    const source = { text, imports };
    sources.set(file, source);
    return source;
}

function resolveSource(from: string, specifier: string): string | undefined {
    const base = path.resolve(path.dirname(from), specifier);
    return [base, `${base}.ts`, path.join(base, "index.ts")].find((f) => fs.existsSync(f) && fs.statSync(f).isFile());
}
