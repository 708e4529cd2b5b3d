/**
 * Work that runs in child processes, started when its test file loads and awaited by its test.
 *
 * `npm test` runs every file in one process, one test at a time: the in-process tests keep one
 * core busy. A test that spawns a command and waits for it leaves that core idle meanwhile;
 * started when the files load, the same command runs on the other core while the in-process
 * tests go on, and its test finds the result ready (or nearly). The jobs run one after another,
 * in the order the files load, which is the order their tests run: two at once would take the
 * core the in-process tests need.
 */
import { spawn, type SpawnOptions } from "node:child_process";

let last: Promise<unknown> = Promise.resolve();

/** Starts `job` once the jobs started before it are done; its test awaits the result. */
export function inBackground<T>(job: () => Promise<T>): Promise<T> {
    const result = last.then(job);
    last = result.catch(() => undefined);
    // Its test reports a failure; a run that leaves the test out must not see an unhandled rejection.
    result.catch(() => undefined);
    return result;
}

/** How a command ended, and what it printed. */
export interface Finished {
    readonly code: number | null;
    readonly stdout: string;
    readonly stderr: string;
}

/** Runs a command to its end (stdin closed); its exit code is for the test to judge. */
export function runToEnd(command: string, args: readonly string[], options: SpawnOptions = {}): Promise<Finished> {
    return new Promise((resolve, reject) => {
        const child = spawn(command, args, { ...options, stdio: ["ignore", "pipe", "pipe"] });
        let stdout = "";
        let stderr = "";
        child.stdout!.on("data", (d) => (stdout += d));
        child.stderr!.on("data", (d) => (stderr += d));
        child.on("error", reject);
        child.on("close", (code) => resolve({ code, stdout, stderr }));
    });
}
