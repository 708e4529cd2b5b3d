/**
 * `npm run bench:test [-- <runs>]`: how long the unit suite takes. Runs the node command of
 * package.json's `test` script as it is (one process, the spec reporter) and prints, per run:
 * the wall time, the CPU time of the test process and of the commands it spawned (Linux, from
 * /proc; CPU is the steadier figure on a shared machine), the suite's own summary (tests,
 * failures, duration_ms) and its slowest top-level suites.
 */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { processIo, reportUsageError, wantsHelp } from "../lib/cli";
import { endQuietlyWhenReaderCloses } from "../lib/pipes";

const ROOT = path.resolve(__dirname, "..", "..");
const USAGE = "usage: npm run bench:test [-- <runs>]\n";
const HELP =
    USAGE +
    "\nRuns the unit suite (package.json's test script, without npm) <runs> times (default 1) and prints\n" +
    "each run's wall time, CPU time (the test process and the commands it spawns), the suite's summary\n" +
    "and its slowest top-level suites.\n" +
    "Exit: 0 measured and every test passed, 1 a test failed, 2 usage error.\n";
/** Linux's clock tick for /proc times (sysconf(_SC_CLK_TCK), 100 on every Linux Node runs on). */
const TICKS_PER_SECOND = 100;

/** package.json's `test` script as node arguments: `node <args>`, double quotes kept together. */
function testCommand(): string[] {
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> };
    const words = [...pkg.scripts.test.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2]);
    if (words[0] !== "node") throw new Error(`the test script does not start with node: ${pkg.scripts.test}`);
    return words.slice(1);
}

/** CPU seconds of a process itself and of the children it waited for, or undefined off Linux. */
function cpuOf(pid: number | "self"): { own: number; children: number } | undefined {
    try {
        // Fields after the command name (which may hold spaces, so cut at its closing parenthesis).
        const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
        const [utime, stime, cutime, cstime] = fields.slice(11, 15).map(Number);
        return { own: (utime + stime) / TICKS_PER_SECOND, children: (cutime + cstime) / TICKS_PER_SECOND };
    } catch {
        return undefined;
    }
}

interface Run {
    readonly code: number | null;
    readonly wallSeconds: number;
    /** The test process and everything it spawned. */
    readonly cpuSeconds?: number;
    /** The test process alone (last sample before it exited, every 50 ms). */
    readonly testProcessCpuSeconds?: number;
    readonly output: string;
}

function runSuite(): Promise<Run> {
    const before = cpuOf("self");
    const start = performance.now();
    const child = spawn(process.execPath, testCommand(), { cwd: ROOT, stdio: ["ignore", "pipe", "inherit"] });
    let output = "";
    child.stdout.on("data", (d: Buffer) => (output += d.toString()));
    let own: number | undefined;
    const sampler = setInterval(() => (own = cpuOf(child.pid!)?.own ?? own), 50);
    return new Promise((resolve, reject) => {
        child.on("error", reject);
        child.on("close", (code) => {
            clearInterval(sampler);
            const wallSeconds = (performance.now() - start) / 1000;
            const after = cpuOf("self");
            const cpuSeconds = before && after ? after.children - before.children : undefined;
            resolve({ code, wallSeconds, cpuSeconds, testProcessCpuSeconds: own, output });
        });
    });
}

/** The suite's summary lines (`ℹ tests 581`) and its top-level results (`✔ name (123.4ms)`). */
function summary(output: string) {
    const count = (name: string) => Number(new RegExp(`^ℹ ${name} ([\\d.]+)$`, "m").exec(output)?.[1] ?? NaN);
    const suites = [...output.matchAll(/^[✔✖] (.*) \(([\d.]+)ms\)$/gm)].map((m) => ({ name: m[1], ms: Number(m[2]) }));
    suites.sort((a, b) => b.ms - a.ms);
    // The reporter lists the failures again after `✖ failing tests:`, each as `✖ name (ms)`.
    const failing = output.includes("✖ failing tests:")
        ? [...output.slice(output.indexOf("✖ failing tests:")).matchAll(/^✖ (.*) \([\d.]+ms\)$/gm)].map((m) => m[1])
        : [];
    return { tests: count("tests"), fail: count("fail"), durationMs: count("duration_ms"), slowest: suites.slice(0, 10), failing };
}

async function main(runs: number): Promise<number> {
    const s = (seconds: number | undefined) => (seconds === undefined ? "n/a" : `${seconds.toFixed(1)} s`);
    let failed = false;
    for (let i = 1; i <= runs; i++) {
        const run = await runSuite();
        const sum = summary(run.output);
        failed ||= run.code !== 0;
        const spawned =
            run.cpuSeconds !== undefined && run.testProcessCpuSeconds !== undefined
                ? run.cpuSeconds - run.testProcessCpuSeconds
                : undefined;
        console.log(`run ${i}/${runs}: ${sum.tests} tests, ${sum.fail} failed, exit ${run.code}`);
        for (const name of sum.failing) console.log(`  failed: ${name}`);
        console.log(`  wall ${s(run.wallSeconds)} (the suite's duration_ms: ${s(sum.durationMs / 1000)})`);
        console.log(`  CPU ${s(run.cpuSeconds)}: the test process ${s(run.testProcessCpuSeconds)}, the commands it spawned ${s(spawned)}`);
        console.log("  slowest top-level suites (wall):");
        for (const { name, ms } of sum.slowest) console.log(`    ${s(ms / 1000).padStart(7)}  ${name}`);
    }
    return failed ? 1 : 0;
}

endQuietlyWhenReaderCloses();
const argv = process.argv.slice(2);
if (wantsHelp(argv)) {
    processIo.out(HELP);
} else if (argv.length > 1 || (argv.length === 1 && !/^[1-9][0-9]*$/.test(argv[0]))) {
    process.exitCode = reportUsageError(processIo, `runs must be one positive whole number; given ${argv.join(" ")}`, USAGE, undefined);
} else {
    void main(Number(argv[0] ?? 1)).then((code) => (process.exitCode = code));
}
