import { createHash } from "node:crypto";
import * as pulumi from "@pulumi/pulumi";
import { runProgram, type RecordedResource } from "./mock-engine";
import { redact } from "./redact";
import { compareStrings, RenderedResource, RenderedStack } from "./rendered";
import { projectName, secretPlaceholder, stackConfig } from "./stack-config";
import { hasStack, stackFile } from "./stack-file";

export interface RenderOptions {
    /** The program's directory: index.ts, Pulumi.yaml and the stack files. */
    readonly root: string;
    readonly stack: string;
    /**
     * Secret keys to treat as set, as `pulumi config set --secret <key>` does on the machine
     * that runs `pulumi up` (stack files in a repository often leave personal keys out).
     */
    readonly assumeSecrets?: readonly string[];
    /**
     * What runs the program: the mock engine's runProgram unless given. The tests give one that
     * runs this repository's program in a process of its own, through the same mock engine.
     */
    readonly run?: typeof runProgram;
}

/**
 * Runs the program in `root` under Pulumi's mocks with the stack file's config (secure values
 * replaced by placeholders, never decrypted) and returns its desired state. Throws what the
 * program throws: a bad config is a pulumi.RunError whose message `pulumi up` prints as is.
 */
export async function renderStack(options: RenderOptions): Promise<RenderedStack> {
    const { root, stack } = options;
    if (!hasStack(root, stack)) throw new Error(`no stack file ${stackFile(root, stack)}`);
    const project = projectName(root);
    const { config, secretKeys } = stackConfig(stack, root);
    for (const key of options.assumeSecrets ?? []) {
        const full = key.includes(":") ? key : `${project}:${key}`;
        if (config[full] !== undefined) continue;
        config[full] = secretPlaceholder(full.split(":")[1]);
        secretKeys.push(full);
    }
    const run = await (options.run ?? runProgram)(config, secretKeys, stack, root);
    return toRenderedStack(run.resources, { stack, project });
}

/** The recorded registrations as a render: plain inputs, secrets redacted, sorted by URN. */
export function toRenderedStack(
    recorded: readonly RecordedResource[],
    id: { readonly stack: string; readonly project: string },
): RenderedStack {
    const urns = new Set<string>();
    for (const r of recorded) {
        // The engine refuses a second registration of a URN; say so rather than render one.
        if (urns.has(r.urn)) throw new pulumi.RunError(`Duplicate resource URN '${r.urn}'; try giving it a unique name`);
        urns.add(r.urn);
    }
    const resources = recorded.map((r): RenderedResource => ({
        urn: r.urn,
        type: r.type,
        name: r.name,
        parent: r.parent === "" ? null : r.parent,
        provider: providerUrn(r.provider, urns),
        dependsOn: [...new Set(r.dependencies)].sort(compareStrings),
        inputs: condenseDynamicProvider(r.type, redact(r.rawInputs) as Record<string, unknown>),
    }));
    resources.sort((a, b) => compareStrings(a.urn, b.urn));
    return { stack: id.stack, project: id.project, resources };
}

/**
 * A dynamic resource's `__provider` input is the serialized reference to its provider's code
 * (components/resources/provider-reference.ts): kilobytes of loader nobody reviews. It holds the
 * code's digest and no path outside the project, so its own digest changes exactly when the code
 * the provider runs does, and that change is real: Pulumi updates the resource.
 */
function condenseDynamicProvider(type: string, inputs: Record<string, unknown>): Record<string, unknown> {
    const code = inputs.__provider;
    if (!type.startsWith("pulumi-nodejs:dynamic/") || typeof code !== "string") return inputs;
    const digest = createHash("sha256").update(code).digest("hex").slice(0, 16);
    return { ...inputs, __provider: `[provider code, sha256 ${digest}]` };
}

/**
 * A provider reference is `<urn>::<id>`. The id comes from the mocks and means nothing in a
 * render; the URN says which provider. Matched against the known URNs because a name, and so
 * a URN, may itself contain `::`.
 */
function providerUrn(reference: string, urns: ReadonlySet<string>): string | null {
    if (reference === "") return null;
    let best = "";
    for (const urn of urns) if (reference.startsWith(`${urn}::`) && urn.length > best.length) best = urn;
    if (best) return best;
    const cut = reference.lastIndexOf("::");
    return cut > 0 ? reference.slice(0, cut) : reference;
}

/** What `pulumi up` prints for a program failure: a RunError's message alone, else the stack trace. */
export function programErrorText(error: unknown): string {
    if (pulumi.RunError.isInstance(error)) return error.message;
    // An unreadable stack file: its name and line say it all (by name: plan-diff's base has its own copy).
    if (error instanceof Error && error.name === "StackFileError") return error.message;
    if (error instanceof Error) return error.stack ?? error.message;
    return String(error);
}
