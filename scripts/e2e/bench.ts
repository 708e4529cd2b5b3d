/**
 * npm run bench:e2e: runs the end-to-end suite once, file by file, and reports each file's wall
 * time with the machine's load, and, from the run of test/e2e/e2e.test.ts, the `pulumi up` wall
 * time for the full stack, the sum of the longest dependency chain's release install times (the
 * floor any tool installing in that order could reach), their ratio, and the no-change `preview`
 * time. `-- <file>...` runs only those files. Needs the tools of scripts/e2e/build-tools.sh.
 * `-- --ci` instead runs the whole `.ci/run` on a fresh clone of this checkout's HEAD, as CI does,
 * and reports its stages' wall times (the block `.ci/run` prints) with the load before and after.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { wantsHelp } from "../lib/cli";
import { longestChain } from "../../components/control-plane/ordering";
import { e2eFiles, fileTimes, REPO, runE2eFiles } from "./files";

const argv = process.argv.slice(2);
if (wantsHelp(argv)) {
    process.stdout.write(
        "usage: npm run bench:e2e [-- <test/e2e file>... | --ci]\n\n" +
            "Runs the end-to-end files (all, or those given) once each, with the tools of scripts/e2e/build-tools.sh,\n" +
            "and prints each file's wall time and the machine's load average before and after; from the run of\n" +
            "test/e2e/e2e.test.ts, the pulumi up wall time of the full stack, the install time of the longest\n" +
            "dependency chain, their ratio, the no-change preview time, and the up's peak memory and CPU time\n" +
            "(the CLI and every process it starts: what an operator's workspace pod must hold).\n" +
            "  --ci    instead run the whole .ci/run on a fresh clone of HEAD (what CI runs, the end-to-end suite\n" +
            "          included when its tools are built) and print each stage's wall time and the load\n" +
            "Exit: 0 measured, 1 a file (or .ci/run) failed or was skipped.\n",
    );
    process.exit(0);
}

const load = () =>
    os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(" ");
const loadBefore = load();
if (argv.includes("--ci")) {
    if (argv.length > 1) {
        console.error("bench:e2e: --ci runs the whole .ci/run and takes no files");
        process.exit(2);
    }
    process.exit(wholeCiRun());
}
const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "nvcf-bench-e2e-")), "bench.json");
const runs = runE2eFiles(argv.length > 0 ? argv : e2eFiles(), { E2E_BENCH_OUT: out }, "dot");
console.log(
    `\nend-to-end files (wall), on ${os.availableParallelism()} cores; load average (1, 5, 15 min) before ${loadBefore}, after ${load()}:`,
);
process.stdout.write(fileTimes(runs));
if (!runs.every((r) => r.passed)) {
    console.error("bench:e2e: a file failed; its time is not a figure to keep");
    process.exit(1);
}
if (!fs.existsSync(out)) process.exit(0);
const { timings, installMs, deps, upUsage } = JSON.parse(fs.readFileSync(out, "utf8")) as {
    timings: Record<string, number>;
    installMs: Record<string, number>;
    deps: Record<string, string[]>;
    upUsage?: { peakRssBytes: number; cpuSeconds: number };
};
// Longest path through the dependency graph, weighted by install time.
const weight = (name: string) => installMs[name] ?? 0;
const names = new Set([...Object.keys(installMs), ...Object.keys(deps)]);
const chain = longestChain(new Map([...names].map((name) => [name, deps[name] ?? []])), weight);
const critical = { ms: chain.reduce((sum, name) => sum + weight(name), 0), chain };
const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const up = timings["up"];
console.log(`pulumi up, full stack (wall):          ${s(up)}`);
console.log(`longest chain, sum of install times:   ${s(critical.ms)} (${critical.chain.join(" -> ")})`);
console.log(`ratio up / chain:                      ${(up / critical.ms).toFixed(2)}`);
console.log(`pulumi preview, no change (wall):      ${s(timings["preview (no change)"])}`);
if (upUsage) {
    const mib = (upUsage.peakRssBytes / 2 ** 20).toFixed(0);
    console.log(`pulumi up, its process tree:           peak memory ${mib} MiB, CPU ${upUsage.cpuSeconds.toFixed(1)} s`);
}
fs.rmSync(path.dirname(out), { recursive: true, force: true });

/** `.ci/run` on a fresh clone of HEAD, its output streamed and kept; its stage times printed again at the end. */
function wholeCiRun(): number {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "nvcf-bench-ci-"));
    try {
        const clone = spawnSync("git", ["clone", "--quiet", REPO, path.join(dir, "clone")], { stdio: "inherit" });
        if (clone.status !== 0) return 1;
        const log = path.join(dir, "ci.log");
        const run = spawnSync("bash", ["-o", "pipefail", "-c", `.ci/run 2>&1 | tee ${JSON.stringify(log)}`], {
            cwd: path.join(dir, "clone"),
            stdio: "inherit",
        });
        const times = /^stage times \(wall\):\n(?: {2}.*\n)+/m.exec(fs.readFileSync(log, "utf8"))?.[0] ?? "no stage times printed\n";
        console.log(
            `\n.ci/run on a fresh clone, on ${os.availableParallelism()} cores; load average (1, 5, 15 min) before ${loadBefore}, after ${load()}:`,
        );
        process.stdout.write(times);
        if (run.status !== 0) console.error("bench:e2e: .ci/run failed; its times are not figures to keep");
        return run.status === 0 ? 0 : 1;
    } finally {
        fs.rmSync(dir, { recursive: true, force: true });
    }
}
