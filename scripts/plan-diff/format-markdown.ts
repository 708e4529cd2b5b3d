import { hasChanges, PlanDiff, ResourceChange } from "./diff";
import { blastRadius, type ChangeKind } from "./blast-radius";
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
import type { Violation } from "../../policies/lib/run-offline";
import { ReleaseInfo, releaseInfo, RenderedResource } from "../lib/rendered";
import { mermaidText } from "../render/format-mermaid";
import { formatPath } from "./value-diff";

/** Past this many rows a resource's table starts folded, so one big change does not bury the rest. */
const OPEN_ROWS = 15;

/**
 * The diff as a pull-request comment section: the policy pack's result, a summary table, a
 * diagram of the changed resources and what waits on them, then one table per changed resource.
 */
export function formatDiffMarkdown(diff: PlanDiff, context: DiffContext, extras: DiffExtras = {}): string {
    const title = `### Stack \`${diff.stack}\`: ${hasChanges(diff) ? summary(diff) : "no changes"}`;
    const note =
        `<sub>Base ${describeBase(context, code)} → this revision, ` +
        `rendered offline under Pulumi's mocks; secret values show as ${code("[secret]")}.</sub>`;
    const policy = extras.violations === undefined ? [] : [policySection(extras.violations)];
    if (!hasChanges(diff)) return `${[title, note, ...policy].join("\n\n")}\n`;
    const rows = [
        ...diff.added.map((r) => row("➕ add", r, releaseInfo(r))),
        ...diff.removed.map((r) => row("➖ remove", r, releaseInfo(r))),
        ...diff.replaced.map((c) => row("♻️ replace", c, c.release)),
        ...diff.changed.map((c) => row("✏️ change", c, c.release)),
    ];
    const sections = [
        title,
        note,
        ...policy,
        ["| | resource | type | release |", "|---|---|---|---|", ...rows].join("\n"),
        ...(extras.head === undefined ? [] : [diagram(diff, extras)]),
        ...diff.replaced.map((c) => section(c, `♻️ ${code(c.name)} is replaced because of ${c.replacedBecause.map(code).join(", ")}`)),
        ...diff.changed.map((c) => section(c, `✏️ ${code(c.name)}`)),
    ];
    return `${sections.join("\n\n")}\n`;
}

function row(action: string, r: RenderedResource | ResourceChange, release: ReleaseInfo | undefined): string {
    return `| ${action} | ${code(r.name)} | ${code(r.type)} | ${release ? cell(describeRelease(release)) : ""} |`;
}

/** The pack's result, as `pulumi preview --policy-pack policies` would judge the working tree. */
function policySection(violations: readonly Violation[]): string {
    const stops = violations.some((v) => v.level === "mandatory");
    const mark = violations.length === 0 ? "✅" : stops ? "❌" : "⚠️";
    const consequence = stops ? ": `pulumi preview --policy-pack policies` and `pulumi up` would stop" : "";
    const lines = policyLines(violations).map((l) => `- ${cell(l)}`);
    return [`${mark} **Policy pack** on this revision: ${policySummary(violations)}${consequence}`, ...lines].join("\n");
}

const CLASSES: Record<ChangeKind, string> = {
    add: "fill:#dafbe1,stroke:#1a7f37",
    remove: "fill:#ffebe9,stroke:#cf222e",
    replace: "fill:#fff1e5,stroke:#bc4c00",
    change: "fill:#fff8c5,stroke:#9a6700",
};

/** A Mermaid flowchart (GitHub draws it): the changed resources, coloured by change, and what waits on them. */
function diagram(diff: PlanDiff, extras: DiffExtras): string {
    const radius = blastRadius(diff, extras.head ?? null);
    const ids = new Map(radius.nodes.map((n, i) => [n.urn, `n${i}`]));
    const lines = ["flowchart LR"];
    for (const n of radius.nodes) lines.push(`  ${ids.get(n.urn)}["${mermaidText(n.name)}"]${n.kind ? `:::${n.kind}` : ""}`);
    if (radius.more > 0) lines.push(`  more["… ${radius.more} more waiting"]`);
    for (const [from, to] of radius.edges) lines.push(`  ${ids.get(from)} --> ${ids.get(to)}`);
    const used = new Set(radius.nodes.flatMap((n) => n.kind ?? []));
    for (const kind of Object.keys(CLASSES) as ChangeKind[]) if (used.has(kind)) lines.push(`  classDef ${kind} ${CLASSES[kind]}`);
    const waiting = radius.nodes.filter((n) => n.kind === undefined).length + radius.more;
    const summaryLine = `What waits on the changes: ${waiting} resource(s); an arrow from A to B means B waits on A`;
    return `<details open><summary>${summaryLine}</summary>\n\n\`\`\`mermaid\n${lines.join("\n")}\n\`\`\`\n\n</details>`;
}

function section(c: ResourceChange, heading: string): string {
    const rows: string[] = [];
    const add = (field: string, from: string, to: string) => rows.push(`| ${field} | ${code(from)} | ${code(to)} |`);
    if (c.codeChanged) add("provider code", "", "changed");
    if (c.provider) add("provider", c.provider.before ?? "(default)", c.provider.after ?? "(default)");
    if (c.parent) add("parent", c.parent.before ?? "(stack)", c.parent.after ?? "(stack)");
    for (const change of c.inputs) add(code(formatPath(change.path)), before(change), after(change));
    for (const change of c.values) add(`values ${code(valuesPath(change))}`, before(change), after(change));
    for (const urn of c.dependsOnAdded) add("dependsOn", "", nameOf(urn));
    for (const urn of c.dependsOnRemoved) add("dependsOn", nameOf(urn), "");
    if (c.codeChanged && rows.length === 1) return `${heading}: its provider code changed`;
    const table = ["| field | before | after |", "|---|---|---|", ...rows].join("\n");
    const open = rows.length <= OPEN_ROWS ? " open" : "";
    return `<details${open}><summary>${heading}: ${rows.length} field(s)</summary>\n\n${table}\n\n</details>`;
}

/** A URN's last part, the resource name: the full URN would not fit a table cell. */
function nameOf(urn: string): string {
    return urn.slice(urn.lastIndexOf("::") + 2);
}

/** Inline code safe inside a table cell: HTML, so pipes and backticks in values cannot break it. */
function code(text: string): string {
    return text === "" ? "" : `<code>${cell(text)}</code>`;
}

function cell(text: string): string {
    return text
        .replace(/&/g, "&amp;")
        .replace(/</g, "&lt;")
        .replace(/>/g, "&gt;")
        .replace(/\|/g, "&#124;")
        .replace(/`/g, "&#96;")
        .replace(/\n/g, "<br>");
}
