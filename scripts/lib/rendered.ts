/**
 * The desired state as `npm run render` writes it (JSON format), and what plan-diff compares.
 * Kept free of the Pulumi SDK so the formatters and the diff load instantly.
 */

/** Every value that was a Pulumi secret in the program is this string in a render. */
export const SECRET = "[secret]";

export const HELM_RELEASE = "kubernetes:helm.sh/v3:Release";

export interface RenderedResource {
    readonly urn: string;
    readonly type: string;
    readonly name: string;
    /** URN of the parent resource; null for top-level resources (the stack itself is left out). */
    readonly parent: string | null;
    /** URN of the explicit provider; null for components and the default provider. */
    readonly provider: string | null;
    /** URNs, sorted: explicit dependsOn and the resources whose outputs feed an input. */
    readonly dependsOn: readonly string[];
    /** The inputs as the engine receives them, secrets replaced by SECRET, object keys sorted. */
    readonly inputs: Readonly<Record<string, unknown>>;
}

export interface RenderedStack {
    readonly stack: string;
    readonly project: string;
    /** Sorted by URN. */
    readonly resources: readonly RenderedResource[];
}

/** Code-unit order: the same on every machine, unlike localeCompare. */
export function compareStrings(a: string, b: string): number {
    return a < b ? -1 : a > b ? 1 : 0;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
    return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** What a reviewer needs to recognise a Helm release: its name, namespace, chart and version. */
export interface ReleaseInfo {
    readonly name: string;
    readonly namespace: string;
    readonly chart: string;
    readonly version: string;
    /** The chart repository, when the chart is not a full reference (oci:// or a path). */
    readonly repository?: string;
}

export function releaseInfo(resource: RenderedResource): ReleaseInfo | undefined {
    if (resource.type !== HELM_RELEASE) return undefined;
    const { inputs } = resource;
    const text = (value: unknown) => (typeof value === "string" ? value : value === undefined ? "" : JSON.stringify(value));
    const repo = isPlainObject(inputs.repositoryOpts) ? inputs.repositoryOpts.repo : undefined;
    return {
        name: text(inputs.name),
        namespace: text(inputs.namespace),
        chart: text(inputs.chart),
        version: text(inputs.version),
        ...(repo !== undefined ? { repository: text(repo) } : {}),
    };
}
