import { hasChanges, PlanDiff, ResourceChange } from "./diff";
import { after, before, describeBase, describeRelease, DiffContext, summary, valuesPath } from "./format-common";
import { ReleaseInfo, releaseInfo, RenderedResource } from "../lib/rendered";
import { formatPath } from "./value-diff";

/** Past this many rows a resource's table starts folded, so one big change does not bury the rest. */
const OPEN_ROWS = 15;

/** The diff as a pull-request comment section: a summary table, then one table per changed resource. */
export function formatDiffMarkdown(diff: PlanDiff, context: DiffContext): string {
    const title = `### Stack \`${diff.stack}\`: ${hasChanges(diff) ? summary(diff) : "no changes"}`;
    const note =
        `<sub>Base ${describeBase(context, code)} → this revision, ` +
        `rendered offline under Pulumi's mocks; secret values show as ${code("[secret]")}.</sub>`;
    if (!hasChanges(diff)) return `${title}\n\n${note}\n`;
    const rows = [
        ...diff.added.map((r) => row("➕ add", r, releaseInfo(r))),
        ...diff.removed.map((r) => row("➖ remove", r, releaseInfo(r))),
        ...diff.replaced.map((c) => row("♻️ replace", c, c.release)),
        ...diff.changed.map((c) => row("✏️ change", c, c.release)),
    ];
    const sections = [
        title,
        note,
        ["| | resource | type | release |", "|---|---|---|---|", ...rows].join("\n"),
        ...diff.replaced.map((c) => section(c, `♻️ ${code(c.name)} is replaced because of ${c.replacedBecause.map(code).join(", ")}`)),
        ...diff.changed.map((c) => section(c, `✏️ ${code(c.name)}`)),
    ];
    return `${sections.join("\n\n")}\n`;
}

function row(action: string, r: RenderedResource | ResourceChange, release: ReleaseInfo | undefined): string {
    return `| ${action} | ${code(r.name)} | ${code(r.type)} | ${release ? cell(describeRelease(release)) : ""} |`;
}

function section(c: ResourceChange, heading: string): string {
    const rows: string[] = [];
    const add = (field: string, from: string, to: string) => rows.push(`| ${field} | ${code(from)} | ${code(to)} |`);
    if (c.provider) add("provider", c.provider.before ?? "(default)", c.provider.after ?? "(default)");
    if (c.parent) add("parent", c.parent.before ?? "(stack)", c.parent.after ?? "(stack)");
    for (const change of c.inputs) add(code(formatPath(change.path)), before(change), after(change));
    for (const change of c.values) add(`values ${code(valuesPath(change))}`, before(change), after(change));
    for (const urn of c.dependsOnAdded) add("dependsOn", "", nameOf(urn));
    for (const urn of c.dependsOnRemoved) add("dependsOn", nameOf(urn), "");
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
