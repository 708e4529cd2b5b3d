import { RenderedResource, RenderedStack, releaseInfo } from "../lib/rendered";
import { longestWaitingChain } from "../lib/waiting-chain";

/**
 * A Mermaid flowchart: a resource with children is a box holding them (the component tree),
 * and an arrow A --> B means B depends on A, so Pulumi creates A first and deletes it last.
 */
export function formatMermaid(rendered: RenderedStack): string {
    const ids = new Map(rendered.resources.map((r, i) => [r.urn, `r${i}`]));
    const children = new Map<string | null, RenderedResource[]>();
    for (const r of rendered.resources) {
        // A parent outside the render (the stack) counts as the top level.
        const parent = r.parent !== null && ids.has(r.parent) ? r.parent : null;
        children.set(parent, [...(children.get(parent) ?? []), r]);
    }
    const lines = [
        "flowchart LR",
        `  %% ${rendered.project} / ${rendered.stack}: boxes are components; an arrow from A to B means B depends on A`,
    ];
    const chain = longestWaitingChain(rendered);
    lines.push(`  %% the longest chain of steps that wait for workloads (${chain.length}): ${chain.join(" > ") || "none"}`);
    const draw = (r: RenderedResource, indent: string) => {
        const id = ids.get(r.urn)!;
        const kids = children.get(r.urn) ?? [];
        if (kids.length === 0) {
            lines.push(`${indent}${id}["${label(r)}"]`);
            return;
        }
        lines.push(`${indent}subgraph ${id}["${label(r)}"]`);
        for (const kid of kids) draw(kid, `${indent}  `);
        lines.push(`${indent}end`);
    };
    for (const r of children.get(null) ?? []) draw(r, "  ");
    for (const r of rendered.resources) {
        for (const dep of r.dependsOn) {
            const from = ids.get(dep);
            // A dependency outside the render cannot be drawn; the JSON format still lists it.
            if (from !== undefined) lines.push(`  ${from} --> ${ids.get(r.urn)!}`);
        }
    }
    return `${lines.join("\n")}\n`;
}

function label(r: RenderedResource): string {
    const release = releaseInfo(r);
    const parts = [r.name, r.type];
    if (release) parts.push(`release ${release.name} in ${release.namespace}, ${release.version}`);
    return parts.map(mermaidText).join("<br/>");
}

/** Mermaid labels are quoted: quotes and angle brackets become entity codes. */
export function mermaidText(text: string): string {
    return text.replace(/"/g, "#quot;").replace(/</g, "#lt;").replace(/>/g, "#gt;");
}
