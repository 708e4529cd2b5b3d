/**
 * The tests' runs of this repository's program, made in a child process of their own.
 *
 * Node's test runner tracks every promise of the test process (to tie an error to the test
 * that caused it), and the SDK makes thousands of promises per run: under that tracking a run of
 * the dev stack costs about twice the CPU it costs in a plain process (some 300 ms instead of
 * 150 on 2 cores). The child has no such tracking and works on the other core. It runs the same
 * mock engine (scripts/lib/mock-engine.ts) on the same config and sends the recorded run back;
 * a run is plain data (types, names, URNs, inputs with their secret envelopes), which the IPC
 * channel's structured clone carries as it is. What the run wrote to the console (the SDK's log
 * under the mocks) comes with it and is written here, before the run is handed over, as a run in
 * this process would have written it.
 *
 * Only runs expected to succeed go there. A run that stops at a config error is cheap (nothing
 * is registered), and its tests check the error's class and what reached stdout, which only this
 * process can do; so does every run of another directory (plan-diff's checkouts, fixtures).
 */
import { fork, type ChildProcess } from "node:child_process";
import * as os from "node:os";
import * as path from "node:path";
import { after } from "node:test";
import { devWith } from "../../scripts/lib/dev-stack";
import { runKey, runProgram as runHere, type ProgramRun } from "../../scripts/lib/mock-engine";
import { REPO_ROOT, TSX_NODE_ARGS } from "../../scripts/lib/repo";
import type { StackConfig } from "../../scripts/lib/stack-config";
import type { Answer, Request } from "./program-runs-protocol";

/** Set in the children: this module starts children when it loads, so they must never load it. */
const CHILD_MARK = "NVCF_PROGRAM_RUN_CHILD";
if (process.env[CHILD_MARK])
    throw new Error("a program-run child loaded program-runs.ts; it takes what it needs from program-runs-protocol.ts");

/**
 * How many children run programs: the cores beside the test process's, at most two. On 2 cores,
 * one: a run of the dev stack takes about 80 ms there, one child keeps up with the suites that
 * ask for many at once, and a second loaded the SDKs and the program again (about 2 s of CPU)
 * on the core the test process needs (`npm run bench:test`, six runs of each, alternated: about
 * a second less wall time, 2 s less CPU, with one).
 */
const CHILDREN = Math.min(2, Math.max(1, os.availableParallelism() - 1));

/** One child process and the requests it has not answered yet. */
class Runner {
    private readonly child: ChildProcess;
    private readonly pending = new Map<number, { resolve: (run: ProgramRun) => void; reject: (error: Error) => void }>();
    private nextId = 0;

    constructor() {
        this.child = fork(path.join(__dirname, "program-runs-child.ts"), [], {
            // A young generation of 64 MB: a run makes much short-lived garbage, and collects less
            // often so (about a fifth less CPU per run, measured on the dev stack). V8's stack trace
            // limit 0: the SDK records a stack trace with every promise it makes, for a leak report
            // at a deployment's exit, about half of a run's CPU; the child answers with data and
            // error messages, never frames (the resources' source positions set their own limit).
            execArgv: ["--max-semi-space-size=64", "--stack-trace-limit=0", ...TSX_NODE_ARGS],
            serialization: "advanced",
            stdio: ["ignore", "inherit", "inherit", "ipc"],
            env: { ...process.env, [CHILD_MARK]: "1" },
        });
        this.child.on("message", (answer: Answer) => {
            const waiting = this.pending.get(answer.id);
            this.pending.delete(answer.id);
            if (this.pending.size === 0) this.child.channel?.unref();
            // Written here, before the run is handed over: as from a run in this process.
            for (const { method, text } of answer.logged) console[method](text);
            if ("run" in answer) waiting?.resolve(answer.run);
            else waiting?.reject(Object.assign(new Error(answer.error.message), { name: answer.error.name }));
        });
        this.child.on("exit", (code, signal) => {
            for (const { reject } of this.pending.values()) {
                reject(new Error(`the program-run process ended (${signal ?? code}) before answering`));
            }
            this.pending.clear();
        });
        // Never what keeps the test process alive; gone with it.
        this.child.unref();
        this.child.channel?.unref();
        process.on("exit", () => this.child.kill());
    }

    get waiting(): number {
        return this.pending.size;
    }

    /** How many runs this child was given (each request takes the next id). */
    get given(): number {
        return this.nextId;
    }

    run(config: StackConfig, secretKeys: string[], stack: string): Promise<ProgramRun> {
        return new Promise((resolve, reject) => {
            if (!this.child.connected) return reject(new Error("the program-run process has ended"));
            const id = ++this.nextId;
            this.pending.set(id, { resolve, reject });
            this.child.channel?.ref();
            const request: Request = { id, config, secretKeys, stack };
            this.child.send(request);
        });
    }

    /** Ends the child and waits for it, so that its CPU time counts in the suite's. */
    async end(): Promise<void> {
        if (!this.child.connected) return;
        const exited = new Promise((resolve) => this.child.once("exit", resolve));
        // Held until it exits: with nothing else to wait for, the process would end here, before
        // the `after` hooks registered after this one (other files' clean-ups) ran.
        this.child.ref();
        this.child.disconnect();
        await exited;
    }
}

// Started when the tests load: the children load the SDKs and the program while the tests do.
const runners = Array.from({ length: CHILDREN }, () => new Runner());
after(() => Promise.all(runners.map((r) => r.end())).then(() => undefined));

/** Runs by their inputs, as the mock engine keeps them: callers treat a run as read-only. */
const runs = new Map<string, Promise<ProgramRun>>();

/**
 * Runs the program in `root` (this repository's by default) under the mocks and records every
 * registration, as scripts/lib/mock-engine.ts's runProgram does; this repository's program runs
 * in the child with the fewest requests waiting. Rejects with the program's message when it throws.
 */
export function runProgram(config: StackConfig, secretKeys: string[] = [], stack = "test", root: string = REPO_ROOT): Promise<ProgramRun> {
    if (path.resolve(root) !== REPO_ROOT) return runHere(config, secretKeys, stack, root);
    const key = runKey(config, secretKeys, stack);
    const cached = runs.get(key);
    if (cached) return cached;
    // The one with the fewest runs waiting; of two idle ones, the one given fewer so far (tests
    // that await each run before asking for the next would otherwise all go to the first).
    const runner = runners.reduce((a, b) => (b.waiting < a.waiting || (b.waiting === a.waiting && b.given < a.given) ? b : a));
    const run = runner.run(config, secretKeys, stack);
    runs.set(key, run);
    return run;
}

// The dev stack, which most test files start from, runs while the test process loads the tests.
{
    const { config, secretKeys } = devWith();
    void runProgram(config, secretKeys).catch(() => undefined);
}

/**
 * For the commands' in-process tests (render's), which need the program's own error when it
 * fails (its class and problems decide what the command prints and assumes): the run in a
 * child, and a run that fails once more here, where it stops at the same error for little
 * (nothing is registered before a config error).
 */
export async function runOrFailHere(
    config: StackConfig,
    secretKeys: string[] = [],
    stack = "test",
    root: string = REPO_ROOT,
): Promise<ProgramRun> {
    try {
        return await runProgram(config, secretKeys, stack, root);
    } catch {
        return runHere(config, secretKeys, stack, root);
    }
}
