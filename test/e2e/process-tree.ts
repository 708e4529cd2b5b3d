/**
 * What a command and everything it starts use, read from /proc while it runs: the peak of the
 * tree's summed resident memory and the CPU time its processes spent. A `pulumi up` is the CLI,
 * the language host, the program's Node.js, the kubernetes provider and a Node.js per dynamic
 * provider at once: the workspace pod of the Pulumi Kubernetes Operator must hold all of them.
 */
import * as fs from "node:fs";

export interface TreeUsage {
    /** The highest sum of the tree's resident set sizes seen at one sample. */
    readonly peakRssBytes: number;
    /** User and system CPU time of every process seen, as of its last sample. */
    readonly cpuSeconds: number;
    readonly samples: number;
}

/** USER_HZ, the unit of /proc's CPU times: 100 on every Linux ABI. */
const TICKS = 100;

interface Stat {
    readonly ppid: number;
    readonly cpuTicks: number;
}

/** /proc/<pid>/stat, fields after the command's closing parenthesis (proc(5)). */
function stat(pid: number): Stat | undefined {
    let text: string;
    try {
        text = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    } catch {
        return undefined;
    }
    const rest = text.slice(text.lastIndexOf(")") + 2).split(" ");
    // rest[0] is field 3 (state): ppid is field 4, utime 14, stime 15.
    return { ppid: Number(rest[1]), cpuTicks: Number(rest[11]) + Number(rest[12]) };
}

/** VmRSS of /proc/<pid>/status, in bytes (0 once the process is gone). */
function rssBytes(pid: number): number {
    try {
        const kb = /^VmRSS:\s+(\d+) kB$/m.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
        return kb === undefined ? 0 : Number(kb) * 1024;
    } catch {
        return 0;
    }
}

/** Samples the tree under `root` every `everyMs` until `stop()`; Linux only (undefined elsewhere). */
export function sampleTree(root: number, everyMs = 200): { stop(): TreeUsage } | undefined {
    if (!fs.existsSync("/proc/self/stat")) return undefined;
    const cpu = new Map<number, number>();
    let peak = 0;
    let samples = 0;
    const sample = () => {
        const all = new Map<number, Stat>();
        for (const name of fs.readdirSync("/proc")) {
            const pid = Number(name);
            if (!Number.isInteger(pid)) continue;
            const s = stat(pid);
            if (s) all.set(pid, s);
        }
        const tree = new Set([root]);
        // Parents are listed before their children only by chance: repeat until nothing joins.
        for (let grew = true; grew;) {
            grew = false;
            for (const [pid, s] of all) {
                if (!tree.has(pid) && tree.has(s.ppid)) {
                    tree.add(pid);
                    grew = true;
                }
            }
        }
        let rss = 0;
        for (const pid of tree) {
            const s = all.get(pid);
            if (!s) continue;
            rss += rssBytes(pid);
            cpu.set(pid, s.cpuTicks);
        }
        peak = Math.max(peak, rss);
        samples++;
    };
    const timer = setInterval(sample, everyMs);
    sample();
    return {
        stop() {
            clearInterval(timer);
            const ticks = [...cpu.values()].reduce((a, b) => a + b, 0);
            return { peakRssBytes: peak, cpuSeconds: ticks / TICKS, samples };
        },
    };
}
