import type { RenderOptions } from "./render";
import type { RenderedStack } from "./rendered";

type Render = typeof import("./render");

export interface AssumingRender {
    readonly rendered: RenderedStack;
    /** Full keys (`<project>:<key>`) assumed set because the program asked for them. */
    readonly assumed: readonly string[];
}

/**
 * Renders the stack; when the program rejects it only because a secret key it requires is
 * missing from the stack file (a config problem on `<project>:<secret key>`), renders again
 * with those keys assumed set. An offline render never reads a secret's value, and stack files
 * in a repository leave personal keys such as ngcApiKey out: `pulumi config set --secret` on
 * the machine that runs `pulumi up` is no step a review needs. Only the keys the program asks
 * for are assumed: assuming an optional one (kubeconfig, cassandraPassword, ...) would change
 * the render. With `auto` false this is a plain render.
 */
export async function renderAssumingSecrets(
    render: Render,
    options: RenderOptions & { readonly assumeSecrets: readonly string[] },
    auto: boolean,
): Promise<AssumingRender> {
    const { SECRET_KEYS } = await import("../../config/load");
    const assumed: string[] = [];
    for (;;) {
        try {
            const assumeSecrets = [...options.assumeSecrets, ...assumed];
            return { rendered: await render.renderStack({ ...options, assumeSecrets }), assumed };
        } catch (error) {
            const missing = auto ? missingSecretKeys(error, SECRET_KEYS).filter((key) => !assumed.includes(key)) : [];
            // Nothing new to assume (or told not to): the program's own message is the answer.
            if (missing.length === 0) throw error;
            assumed.push(...missing);
        }
    }
}

/**
 * The secret keys a config error names as keys of their own (`nvcf-self-managed:ngcApiKey`, not
 * a path inside one). Read by shape, not by class: plan-diff's base revision has its own copy
 * of the program's ConfigError.
 */
export function missingSecretKeys(error: unknown, secretKeys: readonly string[]): string[] {
    const problems = (error as { problems?: unknown } | null)?.problems;
    if (!Array.isArray(problems)) return [];
    const keys = problems
        .map((p) => (p as { key?: unknown }).key)
        .filter((key): key is string => typeof key === "string" && /^[^:.[\]]+:[^:.[\]]+$/.test(key))
        .filter((key) => secretKeys.includes(key.split(":")[1]));
    return [...new Set(keys)];
}

/** The stderr line saying what was assumed, or nothing. */
export function assumedNotice(command: string, assumed: readonly string[], where = ""): string {
    if (assumed.length === 0) return "";
    const names = assumed.map((key) => key.slice(key.indexOf(":") + 1)).join(", ");
    return (
        `${command}: assumed the secret ${names} set${where} (the stack file has no value; an offline render ` +
        `never reads one); --no-assume-secrets turns this off\n`
    );
}
