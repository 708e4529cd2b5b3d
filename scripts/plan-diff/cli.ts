import * as path from "node:path";
import { assumedNotice, renderAssumingSecrets } from "../lib/assume-secrets";
import { Io, list, npmTookOptionsHint, oneOf, parseOptions, reportUsageError, required, wantsHelp } from "../lib/cli";
import { diffStacks, hasChanges } from "./diff";
import { DiffContext } from "./format-common";
import { formatDiffMarkdown } from "./format-markdown";
import { formatDiffText } from "./format-text";
import { resolveCommit, withCheckout } from "./git-checkout";
import { RenderedStack } from "../lib/rendered";
import { hasStack, stackFile } from "../lib/stack-file";
import { withoutSourceMaps } from "../lib/source-maps";

const USAGE =
    "usage: npm run --silent plan-diff -- --stack <name> --base <git-ref> [--format text|markdown]\n" +
    "                                     [--dir <program directory>] [--assume-secret <key>]... [--no-assume-secrets]\n";

const HELP =
    USAGE +
    "\nWhat the working tree changes in a stack's desired state against a git revision, offline.\n" +
    "  --stack <name>         the stack file Pulumi.<name>.yaml (required; missing on one side: an empty stack)\n" +
    "  --base <git-ref>       the revision to compare with, rendered in a temporary git worktree (required)\n" +
    "  --format <format>      text (default) or markdown\n" +
    "  --dir <directory>      the program's directory, in a git repository (default: the current one)\n" +
    "  --assume-secret <key>  treat this secret key as set even when the program does not require it\n" +
    "  --no-assume-secrets    fail, as `pulumi up` would, when a secret key the program requires is not\n" +
    "                         in the stack file (by default it is assumed set, and stderr says so)\n" +
    "Exit: 0 no change, 1 changes, 2 error (usage, git, or a config either side rejects).\n";

const OPTIONS = {
    stack: { type: "string" },
    base: { type: "string" },
    format: { type: "string" },
    dir: { type: "string" },
    "assume-secret": { type: "string", multiple: true },
    "no-assume-secrets": { type: "boolean" },
} as const;

type Render = typeof import("../lib/render");

/**
 * `npm run plan-diff`: what the working tree changes in a stack's desired state against a git
 * revision. Exit 0 when nothing changes, 1 when something does, 2 on any error (usage, git,
 * or a config the program rejects on either side), so CI can tell them apart.
 */
export async function planDiffCli(argv: readonly string[], io: Io, env: NodeJS.ProcessEnv = process.env): Promise<number> {
    if (wantsHelp(argv)) {
        io.out(HELP);
        return 0;
    }
    let stack: string;
    let base: string;
    let format: "text" | "markdown";
    let root: string;
    let assumeSecrets: string[];
    let autoAssume: boolean;
    let commit: string;
    try {
        const values = parseOptions(argv, OPTIONS);
        stack = required("stack", values.stack);
        base = required("base", values.base);
        format = oneOf("format", values.format, ["text", "markdown"], "text");
        root = path.resolve(values.dir ?? process.cwd());
        assumeSecrets = list(values["assume-secret"]);
        autoAssume = values["no-assume-secrets"] !== true;
        stackFile(root, stack); // rejects a stack name that is no file name
        commit = resolveCommit(root, base);
    } catch (error) {
        const hint = npmTookOptionsHint("plan-diff", Object.keys(OPTIONS), argv, env);
        return reportUsageError(io, (error as Error).message, USAGE, hint);
    }
    const side = { stack, assumeSecrets, autoAssume, io };

    try {
        // Loaded only now: the SDK takes seconds to load, and a typo above should fail at once.
        const render: Render = await withoutSourceMaps(() => import("../lib/render"));
        const before = await withCheckout(root, commit, async (dir) => {
            try {
                return await renderSide(render, `at ${base}`, dir, side);
            } finally {
                // The checkout is deleted next: its modules must not stay in the cache.
                render.forgetProgram(dir);
            }
        });
        const after = await renderSide(render, "in the working tree", root, side);
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
    side: { readonly stack: string; readonly assumeSecrets: readonly string[]; readonly autoAssume: boolean; readonly io: Io },
): Promise<RenderedStack | null> {
    const { stack, assumeSecrets, autoAssume, io } = side;
    if (!hasStack(root, stack)) return null;
    try {
        const { rendered, assumed } = await renderAssumingSecrets(render, { root, stack, assumeSecrets }, autoAssume);
        io.err(assumedNotice("plan-diff", assumed, ` ${where}`));
        return rendered;
    } catch (error) {
        throw new Error(`stack ${stack} ${where}: ${render.programErrorText(error)}`, { cause: error });
    }
}
