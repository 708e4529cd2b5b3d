import { hasChanges, PlanDiff, ResourceChange } from "./diff";
import {
    after,
    before,
    describeBase,
    describeRelease,
    DiffContext,
    DiffExtras,
    policyLines,
    policySummary,
    summary,
    valuesPath,
} from "./format-common";
import { releaseInfo, RenderedResource } from "../lib/rendered";
import { formatPath } from "./value-diff";

/** The diff for a terminal or a CI log, with Pulumi's markers: + add, - remove, +- replace, ~ change. */
export function formatDiffText(diff: PlanDiff, context: DiffContext, extras: DiffExtras = {}): string {
    const lines = [`Stack ${diff.stack}: ${describeBase(context)} -> working tree`];
    if (!hasChanges(diff)) lines.push("No changes.");
    else {
        lines.push(summary(diff), "");
        for (const r of diff.added) lines.push(`+ ${headline(r)}`);
        for (const r of diff.removed) lines.push(`- ${headline(r)}`);
        for (const c of diff.replaced)
            lines.push(`+- ${headline(c)}`, `    replaced because: ${c.replacedBecause.join(", ")}`, ...details(c));
        for (const c of diff.changed) lines.push(...changedLines(c));
    }
    if (extras.violations !== undefined) {
        lines.push(`Policy pack on the working tree: ${policySummary(extras.violations)}`);
        lines.push(...policyLines(extras.violations).map((l) => `  ${l}`));
    }
    return `${lines.join("\n")}\n`;
}

/** A change of the provider code alone is one line; with other changes it is one line among them. */
function changedLines(c: ResourceChange): string[] {
    const rest = details(c);
    if (c.codeChanged && rest.length === 0) return [`~ ${headline(c)}: its provider code changed`];
    return [`~ ${headline(c)}`, ...(c.codeChanged ? ["    its provider code changed"] : []), ...rest];
}

function headline(r: RenderedResource | ResourceChange): string {
    const release = "release" in r ? r.release : releaseInfo(r as RenderedResource);
    return `${r.name} (${r.type})${release ? `: ${describeRelease(release)}` : ""}`;
}

function details(c: ResourceChange): string[] {
    const lines: string[] = [];
    if (c.provider) lines.push(`    provider: ${c.provider.before ?? "(default)"} -> ${c.provider.after ?? "(default)"}`);
    if (c.parent) lines.push(`    parent: ${c.parent.before ?? "(stack)"} -> ${c.parent.after ?? "(stack)"}`);
    for (const change of c.inputs) lines.push(`    ${formatPath(change.path)}: ${before(change)} -> ${after(change)}`);
    if (c.values.length > 0) lines.push("    values:");
    for (const change of c.values) lines.push(`      ${valuesPath(change)}: ${before(change)} -> ${after(change)}`);
    for (const urn of c.dependsOnAdded) lines.push(`    now depends on ${urn}`);
    for (const urn of c.dependsOnRemoved) lines.push(`    no longer depends on ${urn}`);
    return lines;
}
