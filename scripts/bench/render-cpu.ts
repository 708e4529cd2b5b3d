/**
 * `npm run bench:render [-- <runs>] [--profile]`: what `npm run render -- --stack dev` costs in
 * CPU, as the user runs it: each run a process of its own (SDK load, the program, the providers'
 * serialised code, the JSON), its user and system time read by the shell that waited for it
 * (the children's times in /proc/<shell>/stat, Linux). CPU, not wall time, so another process on
 * the machine changes the figure little. `--profile` adds one run under `--cpu-prof` and prints
 * the functions with the most self time.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { messageOf } from "../../lib/text/message-of";

const ROOT = path.resolve(__dirname, "..", "..");
const RENDER = ["--import", "tsx", "scripts/render/main.ts", "--stack", "dev"];
const USAGE = "usage: npm run bench:render [-- <runs>] [--profile]\n";

interface CpuProfile {
    readonly nodes: readonly { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }[];
    readonly samples: readonly number[];
    readonly timeDeltas: readonly number[];
}

/** One render in a shell that prints its child's CPU seconds (user, system) once the child is gone. */
function renderOnce(extraNodeArgs: readonly string[] = []): { user: number; system: number } {
    const quoted = [process.execPath, ...extraNodeArgs, ...RENDER].map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(" ");
    // Fields 16 and 17 of /proc/<pid>/stat: the waited-for children's user and system time in clock ticks.
    const script = `${quoted} > /dev/null || exit 1; cat /proc/$$/stat`;
    const res = spawnSync("sh", ["-c", script], { cwd: ROOT, encoding: "utf8", env: { ...process.env, NODE_OPTIONS: "" } });
    if (res.status !== 0) throw new Error(`the render failed (exit ${res.status}): ${res.stderr.slice(-2000)}`);
    const fields = res.stdout.slice(res.stdout.lastIndexOf(")") + 2).split(" ");
    const ticks = Number(spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).stdout.trim()) || 100;
    // After the ")" the fields start at the third (state): field n is at index n - 3.
    return { user: Number(fields[13]) / ticks, system: Number(fields[14]) / ticks };
}

/** The functions with the most self time in a V8 CPU profile. */
function topSelfTime(profile: CpuProfile, count: number): { name: string; ms: number }[] {
    const byNode = new Map(profile.nodes.map((n) => [n.id, n.callFrame]));
    const totals = new Map<string, number>();
    profile.samples.forEach((id, i) => {
        const frame = byNode.get(id);
        if (!frame) return;
        const where = frame.url ? `${frame.url.replace(`file://${ROOT}/`, "")}:${frame.lineNumber + 1}` : "";
        const name = `${frame.functionName || "(anonymous)"}${where ? ` ${where}` : ""}`;
        totals.set(name, (totals.get(name) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
    });
    return [...totals.entries()]
        .map(([name, ms]) => ({ name, ms }))
        .sort((a, b) => b.ms - a.ms)
        .slice(0, count);
}

function main(argv: readonly string[]): number {
    if (argv.includes("--help") || argv.includes("-h")) {
        process.stdout.write(
            USAGE +
                "\nThe CPU time (user + system) of `npm run render -- --stack dev`, each run a process of its own\n" +
                "(default 3 runs); --profile adds a profiled run and its top functions by self time.\n" +
                "Exit: 0 measured, 1 the render failed, 2 usage error.\n",
        );
        return 0;
    }
    const profile = argv.includes("--profile");
    const rest = argv.filter((a) => a !== "--profile");
    if (rest.length > 1 || (rest.length === 1 && !/^[1-9][0-9]*$/.test(rest[0]))) {
        const option = rest.find((a) => a.startsWith("-"));
        const message = option ? `Unknown option '${option}'` : `runs must be one positive whole number; given ${rest.join(" ")}`;
        process.stderr.write(`error: ${message}\n${USAGE}`);
        return 2;
    }
    const runs = Number(rest[0] ?? 3);
    const cpu: number[] = [];
    for (let i = 0; i < runs; i++) {
        const { user, system } = renderOnce();
        cpu.push(user + system);
        console.log(`run ${i + 1}: ${(user + system).toFixed(2)} s CPU (${user.toFixed(2)} user, ${system.toFixed(2)} system)`);
    }
    const sorted = [...cpu].sort((a, b) => a - b);
    console.log(
        `npm run render -- --stack dev: median ${sorted[Math.floor(sorted.length / 2)].toFixed(2)} s CPU, ` +
            `min ${sorted[0].toFixed(2)}, max ${sorted[sorted.length - 1].toFixed(2)} over ${runs} runs; load ${os.loadavg()[0].toFixed(1)}`,
    );
    if (profile) {
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), "nvcf-render-profile-"));
        try {
            renderOnce(["--cpu-prof", "--cpu-prof-dir", dir]);
            const file = fs.readdirSync(dir).find((f) => f.endsWith(".cpuprofile"));
            if (!file) throw new Error("the profiled run wrote no profile");
            const top = topSelfTime(JSON.parse(fs.readFileSync(path.join(dir, file), "utf8")) as CpuProfile, 15);
            console.log("top functions by self time (one profiled run):");
            for (const t of top) console.log(`  ${t.ms.toFixed(0).padStart(6)} ms  ${t.name}`);
        } finally {
            fs.rmSync(dir, { recursive: true, force: true });
        }
    }
    return 0;
}

try {
    process.exitCode = main(process.argv.slice(2));
} catch (err) {
    console.error(messageOf(err));
    process.exitCode = 1;
}
