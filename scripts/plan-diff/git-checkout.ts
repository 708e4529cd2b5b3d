import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { takeReusableDir } from "../lib/reusable-dir";

/** Runs git and returns its trimmed output; a failure carries git's own message. */
export function git(cwd: string, args: readonly string[]): string {
    try {
        return execFileSync("git", args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();
    } catch (error) {
        const stderr = (error as { stderr?: string }).stderr?.trim();
        throw new Error(`git ${args.join(" ")}: ${stderr || (error as Error).message}`, { cause: error });
    }
}

/** The commit a ref names, or an error that says what to do (CI clones are often shallow). */
export function resolveCommit(dir: string, ref: string): string {
    git(dir, ["rev-parse", "--show-toplevel"]); // "not a git repository" says more than "unknown revision"
    try {
        return git(dir, ["rev-parse", "--verify", "--quiet", "--end-of-options", `${ref}^{commit}`]);
    } catch {
        throw new Error(`unknown git revision ${JSON.stringify(ref)} in ${dir} (in a shallow clone, fetch it first)`);
    }
}

/**
 * Checks `commit` out in a temporary `git worktree` and calls `use` with the program directory
 * there (the same place relative to the repository as `dir`). That checkout gets a link to
 * `dir`'s node_modules: the render code and its SDK come from the working tree, so an old
 * revision renders with the same tools, and the mocks reach its program. The worktree is
 * removed afterwards, also on error and on Ctrl-C. Its path is the commit's tree's (content,
 * not history): the next diff against the same files finds the program's modules compiled.
 */
export async function withCheckout<T>(dir: string, commit: string, use: (programDir: string) => Promise<T>): Promise<T> {
    const top = git(dir, ["rev-parse", "--show-toplevel"]);
    const relative = path.relative(fs.realpathSync(top), fs.realpathSync(dir));
    const treeHash = git(top, ["rev-parse", "--verify", "--end-of-options", `${commit}^{tree}`]);
    const { dir: tmp, release } = takeReusableDir(`plan-diff-${treeHash.slice(0, 16)}`);
    const tree = path.join(tmp, "tree");
    const programDir = path.join(tree, relative);
    const link = path.join(programDir, "node_modules");

    let cleaned = false;
    const cleanup = () => {
        if (cleaned) return;
        cleaned = true;
        // Unlink first: nothing after this may follow the link into the working tree's modules.
        if (fs.lstatSync(link, { throwIfNoEntry: false })?.isSymbolicLink()) fs.unlinkSync(link);
        try {
            git(top, ["worktree", "remove", "--force", tree]);
        } catch {
            // Not registered (add failed) or already gone: the directory removal below suffices.
        }
        release();
        try {
            git(top, ["worktree", "prune"]);
        } catch {
            // Pruning only tidies git's bookkeeping; a failure leaves nothing on disk.
        }
    };
    const onSignal = (signal: NodeJS.Signals) => {
        cleanup();
        process.exit(signal === "SIGINT" ? 130 : 143);
    };
    process.once("SIGINT", onSignal);
    process.once("SIGTERM", onSignal);
    try {
        // --force: a run killed outright leaves its worktree registered; this path may be that one.
        git(top, ["worktree", "add", "--force", "--detach", "--quiet", tree, commit]);
        const modules = path.join(dir, "node_modules");
        if (fs.existsSync(programDir) && fs.existsSync(modules)) fs.symlinkSync(fs.realpathSync(modules), link, "dir");
        return await use(programDir);
    } finally {
        process.off("SIGINT", onSignal);
        process.off("SIGTERM", onSignal);
        cleanup();
    }
}
