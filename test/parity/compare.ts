/**
 * The comparison of the program's releases with the bundle's: the same releases, namespaces,
 * charts and versions, and, per release, the same values in every key the chart reads, except
 * the deliberate differences.
 */
import { isPlainObject } from "../../config/model/deep-merge";
import type { BundleRelease } from "./bundle";
import { CHART_KEY, DELIBERATE_DIFFERENCES } from "./differences";
import type { ProgramRelease } from "./environments";

export interface Mismatch {
    readonly release: string;
    /** A value path, or `(release)` for the release table. */
    readonly path: string;
    readonly program: unknown;
    readonly bundle: unknown;
}

/** Every mismatch between the two, in a stable order. */
export function compareReleases(program: readonly ProgramRelease[], bundle: readonly BundleRelease[]): Mismatch[] {
    const out: Mismatch[] = [];
    const byName = new Map(bundle.map((r) => [r.name, r]));
    const names = [...new Set([...program.map((r) => r.name), ...bundle.map((r) => r.name)])].sort();
    for (const name of names) {
        const p = program.find((r) => r.name === name);
        const b = byName.get(name);
        if (!p || !b) {
            out.push({ release: name, path: "(release)", program: p ? "installed" : "absent", bundle: b ? "installed" : "absent" });
            continue;
        }
        for (const field of ["namespace", "chart"] as const) {
            if (p[field] !== b[field]) out.push({ release: name, path: `(${field})`, program: p[field], bundle: b[field] });
        }
        // A chart the bundle takes from a local directory has no version there.
        if (b.version !== "" && p.version !== b.version)
            out.push({ release: name, path: "(version)", program: p.version, bundle: b.version });
        const key = CHART_KEY[name];
        const keys = key
            ? [...new Set([key, ...Object.keys(p.values)])]
            : [...new Set([...Object.keys(p.values), ...Object.keys(b.values)])];
        for (const k of keys.sort()) diff(name, k, p.values[k], b.values[k], out);
    }
    const deliberate = (m: Mismatch) =>
        DELIBERATE_DIFFERENCES.some((d) => d.release === m.release && (m.path === d.path || m.path.startsWith(`${d.path}.`)));
    return out.filter((m) => !deliberate(m));
}

function diff(release: string, path: string, p: unknown, b: unknown, out: Mismatch[]): void {
    if (isPlainObject(p) && isPlainObject(b)) {
        for (const k of [...new Set([...Object.keys(p), ...Object.keys(b)])].sort()) diff(release, `${path}.${k}`, p[k], b[k], out);
        return;
    }
    if (Array.isArray(p) && Array.isArray(b) && p.length === b.length) {
        p.forEach((item, i) => diff(release, `${path}[${i}]`, item, b[i], out));
        return;
    }
    if (p !== b && !(Number.isNaN(p) && Number.isNaN(b))) out.push({ release, path, program: p, bundle: b });
}

export function formatMismatches(env: string, mismatches: readonly Mismatch[]): string {
    return [
        `${env}: ${mismatches.length} difference(s) from helmfile write-values:`,
        ...mismatches.map((m) => `  ${m.release} ${m.path}: program ${JSON.stringify(m.program)}, bundle ${JSON.stringify(m.bundle)}`),
    ].join("\n");
}
