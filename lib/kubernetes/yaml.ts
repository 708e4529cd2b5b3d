import { createRequire } from "node:module";

/**
 * Every document of a multi-document YAML text (a Helm manifest, a CRD bundle), as plain data.
 * js-yaml comes with the Kubernetes client, whose own `loadAllYaml` turns known kinds into its
 * typed classes (camelCased, dates parsed): the API server wants the objects as written.
 */
export function loadAllYaml(text: string): unknown[] {
    const requireFromClient = createRequire(require.resolve("@kubernetes/client-node"));
    return (requireFromClient("js-yaml") as { loadAll: (t: string) => unknown[] }).loadAll(text);
}
