/**
 * npm run bench:e2e: runs the end-to-end suite once, file by file, and reports each file's wall
 * time with the machine's load, and, from the run of test/e2e/e2e.test.ts, the `pulumi up` wall
 * time for the full stack, the sum of the longest dependency chain's release install times (the
 * floor any tool installing in that order could reach), their ratio, and the no-change `preview`
 * time. `-- <file>...` runs only those files. Needs the tools of scripts/e2e/build-tools.sh.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { wantsHelp } from "../lib/cli";
import { longestChain } from "../../components/control-plane/ordering";
import { e2eFiles, fileTimes, runE2eFiles } from "./files";

const argv = process.argv.slice(2);
if (wantsHelp(argv)) {
    process.stdout.write(
        "usage: npm run bench:e2e [-- <test/e2e file>...]\n\n" +
            "Runs the end-to-end files (all, or those given) once each, with the tools of scripts/e2e/build-tools.sh,\n" +
            "and prints each file's wall time and the machine's load average before and after; from the run of\n" +
            "test/e2e/e2e.test.ts, the pulumi up wall time of the full stack, the install time of the longest\n" +
            "dependency chain, their ratio, and the no-change preview time. .ci/run prints each of its stages' times.\n" +
            "Exit: 0 measured, 1 a file failed or was skipped.\n",
    );
    process.exit(0);
}

const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "nvcf-bench-e2e-")), "bench.json");
const load = () =>
    os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(" ");
const loadBefore = load();
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
const { timings, installMs, deps } = JSON.parse(fs.readFileSync(out, "utf8")) as {
    timings: Record<string, number>;
    installMs: Record<string, number>;
    deps: Record<string, string[]>;
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
fs.rmSync(path.dirname(out), { recursive: true, force: true });
