import * as path from "node:path";
import { assumedNotice } from "../lib/assume-secrets";
import { Io, list, npmTookOptionsHint, oneOf, parseOptions, reportUsageError, required, wantsHelp } from "../lib/cli";
import { diffStacks, hasChanges } from "./diff";
import { DiffContext } from "./format-common";
import { formatDiffMarkdown } from "./format-markdown";
import { formatDiffText } from "./format-text";
import { resolveCommit, withCheckout } from "./git-checkout";
import { stackFile } from "../lib/stack-file";
import { renderSideApart } from "./side";
import type { SideRequest } from "./side-protocol";

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
    "Exit: 0 no change, 1 changes, 2 error (usage, git, or a stack file or config either side rejects).\n";

const OPTIONS = {
    stack: { type: "string" },
    base: { type: "string" },
    format: { type: "string" },
    dir: { type: "string" },
    "assume-secret": { type: "string", multiple: true },
    "no-assume-secrets": { type: "boolean" },
} as const;

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
    const side = { stack, assumeSecrets: [...assumeSecrets], autoAssume };

    try {
        // Each side renders in a process of its own, in its own directory, as `pulumi preview`
        // runs the program there; both at once. The working tree's side runs the policy pack too.
        // A side that fails stops the other; both have ended before the error is reported, so
        // the checkout is gone once this returns.
        const abort = new AbortController();
        const stopOther = (error: unknown) => {
            abort.abort();
            throw error;
        };
        const [atBase, inTree] = await Promise.allSettled([
            withCheckout(root, commit, (dir) => renderSide(`at ${base}`, { ...side, root: dir, policies: false }, abort.signal)).catch(
                stopOther,
            ),
            renderSide("in the working tree", { ...side, root, policies: true }, abort.signal).catch(stopOther),
        ]);
        if (atBase.status === "rejected" || inTree.status === "rejected") {
            // The side that failed, not the one stopped because of it.
            const failed = [atBase, inTree].flatMap((s) => (s.status === "rejected" ? [s.reason as Error] : []));
            throw failed.find((e) => !(e.cause instanceof Error && e.cause.name === "AbortError")) ?? failed[0];
        }
        const [before, head] = [atBase.value, inTree.value];
        // Said once both are done, base first: the two sides finish in either order.
        io.err(assumedNotice("plan-diff", before.assumed, ` at ${base}`));
        io.err(assumedNotice("plan-diff", head.assumed, " in the working tree"));
        if (before.rendered === null && head.rendered === null) {
            throw new Error(`no stack file Pulumi.${stack}.yaml in the working tree or at ${base}`);
        }
        const diff = diffStacks(stack, before.rendered, head.rendered);
        const context: DiffContext = { baseRef: base, baseCommit: commit };
        const extras = { head: head.rendered, violations: head.violations ?? [] };
        io.out(format === "markdown" ? formatDiffMarkdown(diff, context, extras) : formatDiffText(diff, context, extras));
        return hasChanges(diff) ? 1 : 0;
    } catch (error) {
        io.err(`${(error as Error).message}\n`);
        return 2;
    }
}

/** One side's render (null rendered without a stack file there: a stack added or removed); its failure names the side. */
async function renderSide(where: string, request: SideRequest, signal: AbortSignal) {
    try {
        return await renderSideApart(request, signal);
    } catch (error) {
        throw new Error(`stack ${request.stack} ${where}: ${(error as Error).message}`, { cause: error });
    }
}
