/**
 * npm run bench:e2e: runs the end-to-end suite once and reports, from that real run, the
 * `pulumi up` wall time for the full stack, the sum of the longest dependency chain's release
 * install times (the floor any tool installing in that order could reach), their ratio, and the
 * no-change `preview` time. Needs the tools of scripts/e2e/build-tools.sh.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { TSX_NODE_ARGS } from "../lib/repo";
import { wantsHelp } from "../lib/cli";
import { longestChain } from "../../components/control-plane/ordering";

if (wantsHelp(process.argv.slice(2))) {
    process.stdout.write(
        "usage: npm run bench:e2e\n\n" +
            "Runs the end-to-end file test/e2e/e2e.test.ts once (the tools of scripts/e2e/build-tools.sh) and prints,\n" +
            "from that run, the pulumi up wall time of the full stack, the install time of the longest dependency\n" +
            "chain, their ratio, and the no-change preview time.\n" +
            "Exit: 0 measured, 1 the run failed or was skipped.\n",
    );
    process.exit(0);
}

const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "nvcf-bench-e2e-")), "bench.json");
const repo = path.resolve(__dirname, "..", "..");
const run = spawnSync(process.execPath, [...TSX_NODE_ARGS, "--test", "--test-reporter=dot", "test/e2e/e2e.test.ts"], {
    cwd: repo,
    stdio: ["ignore", "inherit", "inherit"],
    env: { ...process.env, NVCF_E2E: "1", E2E_BENCH_OUT: out },
});
if (run.status !== 0 || !fs.existsSync(out)) {
    console.error("bench:e2e: the end-to-end run failed or was skipped; no figures");
    process.exit(1);
}
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
