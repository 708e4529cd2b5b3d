import { stringify } from "yaml";
import { HELM_RELEASE, isPlainObject, releaseInfo, RenderedStack } from "../lib/rendered";

/**
 * Each Helm release's values as a YAML document (what `helm get values` would show after the
 * install), under a comment heading naming the release. The whole output is one valid
 * multi-document YAML stream, so a document can be fed to `helm template -f` as it is.
 */
export function formatValues(rendered: RenderedStack): string {
    const docs = rendered.resources
        .filter((r) => r.type === HELM_RELEASE)
        .map((r) => {
            const info = releaseInfo(r)!;
            const heading = [
                `# release: ${info.name}`,
                `# namespace: ${info.namespace}`,
                `# chart: ${info.chart}`,
                ...(info.repository !== undefined ? [`# repository: ${info.repository}`] : []),
                `# version: ${info.version}`,
            ];
            const values = isPlainObject(r.inputs.values) ? r.inputs.values : {};
            // lineWidth 0: never fold long strings, a folded line reads as a change in a diff.
            return ["---", ...heading, stringify(values, { lineWidth: 0 }).trimEnd()].join("\n");
        });
    return docs.length === 0 ? "" : `${docs.join("\n")}\n`;
}
