import type { Violation } from "../../policies/lib/run-offline";
import { PlanDiff } from "./diff";
import { ReleaseInfo, RenderedStack, SECRET } from "../lib/rendered";
import { formatPath, ValueChange } from "./value-diff";

/** Which two revisions were compared, for the headings. */
export interface DiffContext {
    readonly baseRef: string;
    readonly baseCommit: string;
}

/** What the command adds to a diff: the working tree's render and the policy pack's findings on it. */
export interface DiffExtras {
    /** For what waits on the changed resources. */
    readonly head?: RenderedStack | null;
    /** Undefined when the pack did not run. */
    readonly violations?: readonly Violation[];
}

/** `no violations`, or the count per enforcement level (mandatory first: it stops `pulumi up`). */
export function policySummary(violations: readonly Violation[]): string {
    if (violations.length === 0) return "no violations";
    const levels = ["mandatory", "advisory", "remediate", "disabled"] as const;
    return levels
        .map((level) => [level, violations.filter((v) => v.level === level).length] as const)
        .filter(([, n]) => n > 0)
        .map(([level, n]) => `${n} ${level}`)
        .join(", ");
}

/** The violations, mandatory first, each as `[level] policy: message`. */
export function policyLines(violations: readonly Violation[]): string[] {
    const rank = (v: Violation) => (v.level === "mandatory" ? 0 : 1);
    return [...violations].sort((a, b) => rank(a) - rank(b)).map((v) => `[${v.level}] ${v.policy}: ${v.message}`);
}

export function summary(diff: PlanDiff): string {
    const n = (count: number, what: string) => `${count} to ${what}`;
    return [
        n(diff.added.length, "add"),
        n(diff.removed.length, "remove"),
        n(diff.replaced.length, "replace"),
        n(diff.changed.length, "change"),
    ].join(", ");
}

/** A value for display: secrets as [secret] only, an absent key as (none), the rest as JSON. */
export function show(value: unknown, present: boolean): string {
    if (!present) return "(none)";
    if (value === SECRET) return SECRET;
    return JSON.stringify(value) ?? "null";
}

export function before(c: ValueChange): string {
    return show(c.before, c.kind !== "added");
}

export function after(c: ValueChange): string {
    return show(c.after, c.kind !== "removed");
}

/** A values path; the empty path is the whole values map (added or removed at once). */
export function valuesPath(c: ValueChange): string {
    return c.path.length === 0 ? "(all values)" : formatPath(c.path);
}

export function describeRelease(release: ReleaseInfo): string {
    const chart = release.repository ? `${release.repository} ${release.chart}` : release.chart;
    return `release ${release.name} in ${release.namespace}, chart ${chart}, version ${release.version}`;
}

export function shortCommit(commit: string): string {
    return commit.slice(0, 12);
}

/** `main (1a2b3c4d5e6f)`, or only the short commit when the ref is (part of) the commit. */
export function describeBase(context: DiffContext, quote: (text: string) => string = (t) => t): string {
    const short = quote(shortCommit(context.baseCommit));
    return context.baseCommit.startsWith(context.baseRef) ? short : `${quote(context.baseRef)} (${short})`;
}
