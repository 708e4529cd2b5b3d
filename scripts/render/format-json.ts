import { RenderedStack } from "../lib/rendered";

/**
 * The render as JSON, fields in the documented order. The inputs are already canonical (keys
 * sorted), so the same desired state always gives the same bytes.
 */
export function formatJson(rendered: RenderedStack): string {
    const doc = {
        stack: rendered.stack,
        project: rendered.project,
        resources: rendered.resources.map((r) => ({
            urn: r.urn,
            type: r.type,
            name: r.name,
            parent: r.parent,
            provider: r.provider,
            dependsOn: r.dependsOn,
            inputs: r.inputs,
        })),
    };
    return `${JSON.stringify(doc, null, 2)}\n`;
}
