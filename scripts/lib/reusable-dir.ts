import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

/** The file in a taken directory that names its holder's process. */
const OWNER = ".owner";
/** How long a directory may go without an owner file before it counts as left behind. */
const UNOWNED_GRACE_MS = 60_000;

export interface ReusableDir {
    /** The directory, empty but for its owner file when taken. */
    readonly dir: string;
    /** Removes it. */
    release(): void;
}

/**
 * A directory at the same path under the temporary directory each time (`<tmp>/<name>`), for
 * work that loads the same TypeScript again and again from a directory made for it (a checkout,
 * a copy): tsx and V8 key their compile caches by a file's path, so a program loaded from a new
 * temporary path is compiled afresh each time, and each compile adds files to tsx's cache
 * directory, which tsx lists in full once in every process that adds one.
 *
 * Taken by creating it. One a live process holds (its pid in `.owner`) is never shared: the
 * caller gets a new temporary directory instead, as before. One left by a process that ended is
 * removed and taken over.
 */
export function takeReusableDir(name: string): ReusableDir {
    const dir = path.join(os.tmpdir(), name);
    if (create(dir)) return holding(dir);
    if (leftBehind(dir)) {
        fs.rmSync(dir, { recursive: true, force: true });
        if (create(dir)) return holding(dir);
    }
    return holding(fs.mkdtempSync(`${dir}-`));
}

function create(dir: string): boolean {
    try {
        fs.mkdirSync(dir);
        return true;
    } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
        throw error;
    }
}

function holding(dir: string): ReusableDir {
    fs.writeFileSync(path.join(dir, OWNER), String(process.pid));
    return { dir, release: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

/** Whether `dir` was left by a process that ended (or by one that never wrote its owner file). */
function leftBehind(dir: string): boolean {
    let owner: string;
    try {
        owner = fs.readFileSync(path.join(dir, OWNER), "utf8");
    } catch {
        const made = fs.statSync(dir, { throwIfNoEntry: false })?.mtimeMs;
        return made !== undefined && Date.now() - made > UNOWNED_GRACE_MS;
    }
    const pid = Number(owner);
    if (!Number.isInteger(pid) || pid <= 0) return true;
    try {
        process.kill(pid, 0);
        return false;
    } catch (error) {
        // EPERM: alive, another user's.
        return (error as NodeJS.ErrnoException).code === "ESRCH";
    }
}
