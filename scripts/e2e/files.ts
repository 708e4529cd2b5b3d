import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { TSX_NODE_ARGS } from "../lib/repo";

export const REPO = path.resolve(__dirname, "..", "..");

/** The end-to-end files, in the order they run. */
export function e2eFiles(): string[] {
    return fs
        .readdirSync(path.join(REPO, "test", "e2e"))
        .filter((f) => f.endsWith(".test.ts"))
        .sort()
        .map((f) => path.join("test", "e2e", f));
}

export interface FileRun {
    readonly file: string;
    readonly ms: number;
    readonly passed: boolean;
}

/**
 * Runs each file in a test process of its own, one after another (the OpenBao suites both serve
 * their fake members on this machine's port 8200), and times each: which file to speed up is the
 * first question when the suite nears CI's budget. Output goes to this process's stdout.
 */
export function runE2eFiles(files: readonly string[], env: NodeJS.ProcessEnv, reporter = "spec"): FileRun[] {
    return files.map((file) => {
        const start = process.hrtime.bigint();
        const res = spawnSync(process.execPath, [...TSX_NODE_ARGS, "--test", `--test-reporter=${reporter}`, file], {
            cwd: REPO,
            stdio: "inherit",
            env: { ...process.env, ...env, NVCF_E2E: "1" },
        });
        if (res.error) throw res.error;
        return { file, ms: Number((process.hrtime.bigint() - start) / 1_000_000n), passed: res.status === 0 };
    });
}

/** One line per file, then the total: `  test/e2e/x.test.ts   123.4 s  passed`. */
export function fileTimes(runs: readonly FileRun[]): string {
    const width = Math.max(...runs.map((r) => r.file.length));
    const line = (name: string, ms: number, what: string) => `  ${name.padEnd(width)}  ${(ms / 1000).toFixed(1).padStart(7)} s  ${what}`;
    const total = runs.reduce((sum, r) => sum + r.ms, 0);
    return (
        [...runs.map((r) => line(r.file, r.ms, r.passed ? "passed" : "FAILED")), line("all files", total, "")].join("\n").trimEnd() + "\n"
    );
}
