import * as path from "node:path";
import { Io, list, oneOf, parseOptions, required } from "./cli";
import { diffStacks, hasChanges } from "./diff";
import { DiffContext } from "./format-diff-common";
import { formatDiffMarkdown } from "./format-diff-markdown";
import { formatDiffText } from "./format-diff-text";
import { resolveCommit, withCheckout } from "./git-checkout";
import { RenderedStack } from "./rendered";
import { hasStack, stackFile } from "./stack-file";

const USAGE =
    "usage: npm run --silent plan-diff -- --stack <name> --base <git-ref> [--format text|markdown]\n" +
    "                                     [--dir <program directory>] [--assume-secret <key>]...\n";

type Render = typeof import("./render");

/**
 * `npm run plan-diff`: what the working tree changes in a stack's desired state against a git
 * revision. Exit 0 when nothing changes, 1 when something does, 2 on any error (usage, git,
 * or a config the program rejects on either side), so CI can tell them apart.
 */
export async function planDiffCli(argv: readonly string[], io: Io): Promise<number> {
    let stack: string;
    let base: string;
    let format: "text" | "markdown";
    let root: string;
    let assumeSecrets: string[];
    let commit: string;
    try {
        const values = parseOptions(argv, {
            stack: { type: "string" },
            base: { type: "string" },
            format: { type: "string" },
            dir: { type: "string" },
            "assume-secret": { type: "string", multiple: true },
        });
        stack = required("stack", values.stack);
        base = required("base", values.base);
        format = oneOf("format", values.format, ["text", "markdown"], "text");
        root = path.resolve(values.dir ?? process.cwd());
        assumeSecrets = list(values["assume-secret"]);
        stackFile(root, stack); // rejects a stack name that is no file name
        commit = resolveCommit(root, base);
    } catch (error) {
        io.err(`${(error as Error).message}\n${USAGE}`);
        return 2;
    }

    try {
        // Loaded only now: the SDK takes seconds to load, and a typo above should fail at once.
        const render: Render = await import("./render");
        const before = await withCheckout(root, commit, async (dir) => {
            try {
                return await renderSide(render, `at ${base}`, dir, stack, assumeSecrets);
            } finally {
                // The checkout is deleted next: its modules must not stay in the cache.
                render.forgetProgram(dir);
            }
        });
        const after = await renderSide(render, "in the working tree", root, stack, assumeSecrets);
        if (before === null && after === null) {
            throw new Error(`no stack file Pulumi.${stack}.yaml in the working tree or at ${base}`);
        }
        const diff = diffStacks(stack, before, after);
        const context: DiffContext = { baseRef: base, baseCommit: commit };
        io.out(format === "markdown" ? formatDiffMarkdown(diff, context) : formatDiffText(diff, context));
        return hasChanges(diff) ? 1 : 0;
    } catch (error) {
        io.err(`${(error as Error).message}\n`);
        return 2;
    }
}

/** One side's render; null without a stack file there (a stack added or removed). */
async function renderSide(
    render: Render,
    where: string,
    root: string,
    stack: string,
    assumeSecrets: readonly string[],
): Promise<RenderedStack | null> {
    if (!hasStack(root, stack)) return null;
    try {
        return await render.renderStack({ root, stack, assumeSecrets });
    } catch (error) {
        throw new Error(`stack ${stack} ${where}: ${render.programErrorText(error)}`);
    }
}
