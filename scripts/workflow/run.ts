import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { condition, ExpressionContext, interpolate, needsGitHub } from "./expressions";
import { Job, Step } from "./plan";
import { readKeyValues } from "./step-files";

export interface JobRun {
    /** A fresh clone for this job, as GitHub gives each job a fresh runner. */
    readonly workspace: string;
    /** $RUNNER_TEMP and the step files live here. */
    readonly temp: string;
    readonly github: Readonly<Record<string, string>>;
    readonly log: (line: string) => void;
    /** `run:` commands the caller already ran on this commit, in a fresh clone of its own: not run twice. */
    readonly ran?: ReadonlySet<string>;
}

/**
 * What a `uses:` step does here. actions/checkout is the fresh clone the job starts from;
 * actions/setup-node is the Node.js running this (checked, not installed); any other action
 * needs GitHub or its credentials, and is skipped with that reason.
 */
function usesStep(step: Step, ctx: ExpressionContext): string {
    const action = (step.uses ?? "").split("@")[0];
    if (action === "actions/checkout") return "done: the job's fresh clone";
    if (action === "actions/setup-node") {
        const wanted = Number(interpolate(step.with["node-version"] ?? "0", ctx));
        const have = Number(process.versions.node.split(".")[0]);
        if (have < wanted) throw new Error(`${step.name}: needs Node.js ${wanted}, this is ${process.version}`);
        return `done: Node.js ${process.version} is here`;
    }
    return `skipped: ${action} needs GitHub (or the credentials it holds)`;
}

/** Runs one job's steps in order; throws at the first failing step, naming it. */
export function runJob(job: Job, run: JobRun): void {
    const steps: Record<string, Record<string, string>> = {};
    const ctx: ExpressionContext = { workspace: run.workspace, github: run.github, steps };
    const envFile = path.join(run.temp, "github-env");
    const summary = path.join(run.temp, "step-summary.md");
    if (job.if !== undefined && !condition(job.if, ctx)) return run.log(`  ${job.id}: skipped: if: ${job.if} is false`);
    let jobEnv: Record<string, string> = {};
    for (const [k, v] of Object.entries(job.env)) jobEnv[k] = interpolate(v, ctx);
    job.steps.forEach((step, index) => {
        const label = `${job.id} / ${step.name}`;
        const githubOnly = step.if === undefined ? undefined : needsGitHub(step.if);
        if (githubOnly) return run.log(`  ${label}: skipped: ${githubOnly}`);
        if (step.if !== undefined && !condition(step.if, ctx)) return run.log(`  ${label}: skipped: if: ${step.if} is false`);
        if (step.run === undefined) return run.log(`  ${label}: ${usesStep(step, ctx)}`);
        if (run.ran?.has(step.run.trim())) return run.log(`  ${label}: skipped: ran above on this commit`);

        const output = path.join(run.temp, `output-${index}`);
        fs.writeFileSync(output, "");
        const env: NodeJS.ProcessEnv = {
            ...process.env,
            ...jobEnv,
            CI: "true",
            GITHUB_ACTIONS: "true",
            GITHUB_WORKSPACE: run.workspace,
            RUNNER_TEMP: run.temp,
            GITHUB_OUTPUT: output,
            GITHUB_ENV: envFile,
            GITHUB_STEP_SUMMARY: summary,
        };
        for (const [k, v] of Object.entries(step.env)) env[k] = interpolate(v, ctx);
        const script = path.join(run.temp, `step-${index}.sh`);
        fs.writeFileSync(script, interpolate(step.run, ctx));
        // GitHub's commands for `shell: bash` and for no shell on Linux.
        const shell = step.shell === "bash" ? ["--noprofile", "--norc", "-eo", "pipefail"] : ["-e"];
        if (step.shell !== undefined && step.shell !== "bash") throw new Error(`${label}: shell ${step.shell} is not supported here`);
        run.log(`  ${label}: running`);
        const started = Date.now();
        const res = spawnSync("bash", [...shell, script], { cwd: run.workspace, env, stdio: "inherit" });
        if (res.error) throw res.error;
        if (res.status !== 0) throw new Error(`${label}: failed with exit code ${res.status ?? res.signal}`);
        run.log(`  ${label}: passed (${((Date.now() - started) / 1000).toFixed(1)} s)`);
        if (step.id !== undefined) steps[step.id] = readKeyValues(output);
        jobEnv = { ...jobEnv, ...readKeyValues(envFile) };
    });
}
