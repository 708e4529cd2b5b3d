import { parse as parseYaml } from "yaml";
import { needsGitHub } from "./expressions";

export interface Step {
    readonly name: string;
    readonly id?: string;
    readonly if?: string;
    readonly run?: string;
    readonly uses?: string;
    readonly with: Readonly<Record<string, string>>;
    readonly env: Readonly<Record<string, string>>;
    readonly shell?: string;
}

export interface Job {
    readonly id: string;
    /** Why the job is not run locally; undefined when it is. */
    readonly skip?: string;
    /** The job's own `if:`, evaluated when it runs (`vars.`/`secrets.` ones skip it here already). */
    readonly if?: string;
    readonly env: Readonly<Record<string, string>>;
    readonly steps: readonly Step[];
}

type Raw = Record<string, unknown>;

function strings(value: unknown): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries((value ?? {}) as Raw)) out[k] = String(v);
    return out;
}

function stepOf(raw: Raw, index: number): Step {
    const run = raw.run === undefined ? undefined : String(raw.run);
    const uses = raw.uses === undefined ? undefined : String(raw.uses);
    const name =
        raw.name !== undefined
            ? String(raw.name)
            : run !== undefined
              ? `run: ${run.split("\n")[0]}`
              : `uses: ${uses ?? `step ${index + 1}`}`;
    return {
        name,
        id: raw.id === undefined ? undefined : String(raw.id),
        if: raw.if === undefined ? undefined : String(raw.if),
        run,
        uses,
        with: strings(raw.with),
        env: strings(raw.env),
        shell: raw.shell === undefined ? undefined : String(raw.shell),
    };
}

/**
 * A workflow's jobs in an order GitHub could run them (each after the jobs it `needs`), each
 * with its steps in order. A job that reads `vars.` or `secrets.` in its `if:`, or needs a
 * skipped job, is marked skipped with the reason.
 */
export function planWorkflow(text: string): Job[] {
    const doc = parseYaml(text) as { jobs?: Record<string, Raw> };
    const raw = doc.jobs ?? {};
    const jobs = new Map<string, Job>();
    const visiting = new Set<string>();
    const visit = (id: string): Job => {
        const done = jobs.get(id);
        if (done) return done;
        if (visiting.has(id)) throw new Error(`job ${id}: a cycle in needs`);
        const r = raw[id];
        if (r === undefined) throw new Error(`a job needs ${id}, which the workflow does not have`);
        visiting.add(id);
        const needs = r.needs === undefined ? [] : Array.isArray(r.needs) ? r.needs.map(String) : [String(r.needs)];
        const skippedNeed = needs.map(visit).find((job) => job.skip !== undefined);
        const jobIf = r.if === undefined ? undefined : String(r.if);
        const skip =
            (skippedNeed && `needs ${skippedNeed.id}, which is skipped`) ??
            (jobIf === undefined ? undefined : needsGitHub(jobIf)) ??
            (r.uses !== undefined ? "calls a reusable workflow" : undefined);
        const steps = ((r.steps ?? []) as Raw[]).map(stepOf);
        const job: Job = { id, skip, if: jobIf, env: strings(r.env), steps };
        visiting.delete(id);
        jobs.set(id, job);
        return job;
    };
    for (const id of Object.keys(raw)) visit(id);
    return [...jobs.values()];
}
