/**
 * `node --import tsx scripts/workflow/main.ts [--ran <command>]... <workflow.yml>...`: runs a GitHub workflow's jobs
 * on this machine, in order, each in a fresh clone of HEAD, so a step the workflow is missing
 * (an install, say) fails here as it would on GitHub. `run:` steps run as GitHub runs them
 * (bash, $GITHUB_OUTPUT, $GITHUB_ENV, $RUNNER_TEMP, `if:` on step outputs); steps and jobs that
 * need GitHub (other actions, `vars.`, `secrets.`) are skipped with the reason printed.
 * A `run:` step whose command is given with `--ran` is skipped: the caller ran it on the same
 * commit (.ci/run's own checks, so the unit suite runs once).
 * Exit 0 every step run passed, 1 one failed, 2 the workflow holds what this cannot evaluate.
 * .ci/run runs it on pull-request.yml beside actionlint.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { endQuietlyWhenReaderCloses } from "../lib/pipes";
import { UnsupportedExpression } from "./expressions";
import { planWorkflow } from "./plan";
import { runJob } from "./run";

function git(cwd: string, args: readonly string[]): string {
    const res = spawnSync("git", args, { cwd, encoding: "utf8" });
    if (res.status !== 0) throw new Error(`git ${args.join(" ")}: ${res.stderr.trim()}`);
    return res.stdout.trim();
}

function main(args: readonly string[]): number {
    const ran = new Set<string>();
    const files: string[] = [];
    for (let i = 0; i < args.length; i++) {
        if (args[i] === "--ran" && i + 1 < args.length) ran.add(args[++i].trim());
        else files.push(args[i]);
    }
    if (files.length === 0 || files.includes("--help")) {
        console.log("usage: node --import tsx scripts/workflow/main.ts [--ran <command>]... <.github/workflows/file.yml>...");
        return files.length === 0 ? 2 : 0;
    }
    const repo = git(process.cwd(), ["rev-parse", "--show-toplevel"]);
    const head = git(repo, ["rev-parse", "HEAD"]);
    if (git(repo, ["status", "--porcelain"]) !== "")
        console.log(`note: runs the committed HEAD ${head.slice(0, 12)}; uncommitted changes are not in the clones`);
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "nvcf-workflow-"));
    try {
        for (const file of files) {
            console.log(`workflow ${file}`);
            for (const job of planWorkflow(fs.readFileSync(file, "utf8"))) {
                if (job.skip !== undefined) {
                    console.log(`  ${job.id}: skipped: ${job.skip}`);
                    continue;
                }
                const workspace = path.join(tmp, `${path.basename(file)}-${job.id}`);
                git(tmp, ["clone", "--quiet", repo, workspace]);
                git(workspace, ["checkout", "--quiet", "--detach", head]);
                const temp = fs.mkdtempSync(path.join(tmp, "runner-temp-"));
                // The pull request's base: the parent commit stands in for it.
                const parent = spawnSync("git", ["rev-parse", "--verify", "--quiet", "HEAD~1"], { cwd: workspace, encoding: "utf8" });
                const base = parent.status === 0 ? parent.stdout.trim() : head;
                const github = { "event.pull_request.base.sha": base, "event.pull_request.number": "0" };
                runJob(job, { workspace, temp, github, log: (line) => console.log(line), ran });
                fs.rmSync(workspace, { recursive: true, force: true });
            }
        }
        console.log("workflow steps: passed");
        return 0;
    } catch (error) {
        console.error(`workflow steps: ${(error as Error).message}`);
        return error instanceof UnsupportedExpression ? 2 : 1;
    } finally {
        fs.rmSync(tmp, { recursive: true, force: true });
    }
}

endQuietlyWhenReaderCloses();
process.exitCode = main(process.argv.slice(2));
