import * as fs from "node:fs";
import * as os from "node:os";

/**
 * Whether a stack lock still belongs to a running command. Pulumi's lock names the process
 * (pid), its user and its host; only a process on this host can be looked at.
 */

/** The machine the command runs on, as far as locks are concerned. */
export interface Processes {
    readonly hostname: string;
    /** True when a process with this pid exists (whatever it runs). */
    alive(pid: number): boolean;
    /** Its command line, when the system tells (Linux /proc); undefined otherwise. */
    commandLine(pid: number): string | undefined;
}

/** A lock's owner, from a lock file or from the CLI's "locked by" message. */
export interface LockOwner {
    /** Where the lock is (a file, or the URL the CLI printed). */
    readonly where: string;
    readonly pid?: number;
    readonly username?: string;
    readonly hostname?: string;
    readonly timestamp?: string;
    readonly unreadable?: string;
}

export interface LockVerdict {
    /** stale: nothing holds it; live: a pulumi process here still runs; unknown: another host, or unreadable. */
    readonly verdict: "stale" | "live" | "unknown";
    readonly why: string;
}

/** Who holds a lock, as a line names it: `<user>@<host> (pid <n>) since <time>`. */
export function lockOwnerText(lock: LockOwner): string {
    return `${lock.username ?? "?"}@${lock.hostname ?? "?"} (pid ${lock.pid ?? "?"})${lock.timestamp ? ` since ${lock.timestamp}` : ""}`;
}

export function judgeLock(lock: LockOwner, processes: Processes): LockVerdict {
    const owner = lockOwnerText(lock);
    if (lock.unreadable !== undefined) return { verdict: "unknown", why: lock.unreadable };
    if (lock.pid === undefined || lock.hostname === undefined) return { verdict: "unknown", why: `the lock names no process: ${owner}` };
    if (lock.hostname !== processes.hostname) {
        return {
            verdict: "unknown",
            why: `held by ${owner}, on another host than this one (${processes.hostname}), which this command cannot look at`,
        };
    }
    if (!processes.alive(lock.pid)) return { verdict: "stale", why: `held by ${owner}, which no longer runs` };
    const command = processes.commandLine(lock.pid);
    // A recycled pid: the process that took the lock is gone, another one has its number.
    if (command !== undefined && !/pulumi/i.test(command)) {
        return { verdict: "stale", why: `held by ${owner}; that pid now runs another program (${command.slice(0, 80)})` };
    }
    return { verdict: "live", why: `held by ${owner}, which is still running` };
}

/** The DIY backends' error for a locked stack (a lock file left by a killed run, or a running one). */
export const LOCKED_STACK = /the stack is currently locked by \d+ lock/;

/**
 * The locks a CLI error names (any backend without files this command can read):
 * the DIY backends' `the stack is currently locked by N lock(s)` message with one line per
 * lock, or Pulumi Cloud's conflict while another update runs (which names no process).
 */
export function locksInMessage(text: string): LockOwner[] | undefined {
    if (LOCKED_STACK.test(text)) {
        return [...text.matchAll(/^\s*(\S+): created by (.*)@(\S+) \(pid (\d+)\) at (\S+)\s*$/gm)].map((m) => ({
            where: m[1],
            username: m[2],
            hostname: m[3],
            pid: Number(m[4]),
            timestamp: m[5],
        }));
    }
    if (/Another update is currently in progress|\[409\] Conflict/.test(text)) {
        return [{ where: "the backend", unreadable: "the backend reports another update in progress and names no process" }];
    }
    return undefined;
}

/** This machine's processes: /proc where there is one (a zombie counts as gone), else signal 0. */
export function localProcesses(): Processes {
    const proc = fs.existsSync("/proc/self/stat");
    return {
        hostname: os.hostname(),
        alive(pid) {
            if (proc) {
                try {
                    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
                    return !/^[ZX]/.test(stat.slice(stat.lastIndexOf(")") + 2));
                } catch {
                    return false;
                }
            }
            try {
                process.kill(pid, 0);
                return true;
            } catch (error) {
                return (error as NodeJS.ErrnoException).code === "EPERM";
            }
        },
        commandLine(pid) {
            if (!proc) return undefined;
            try {
                return fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").replace(/\0/g, " ").trim();
            } catch {
                return undefined;
            }
        },
    };
}
