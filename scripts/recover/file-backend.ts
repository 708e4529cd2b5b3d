import * as crypto from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import * as zlib from "node:zlib";
import type { LockOwner } from "./locks";

/**
 * The local file backend (`pulumi login file://<dir>` or `--local`), read and repaired on disk.
 * Pulumi keeps it through gocloud's fileblob: every file (blob) has a JSON sidecar `<file>.attrs`
 * written in place, not atomically, before the blob itself is renamed into place; a run killed
 * in between leaves an empty or torn sidecar, and every later read of that blob fails (`failed
 * to load checkpoint: EOF`). Locks are one JSON file per running command under
 * `.pulumi/locks/<stack>/`, naming the process, its user and its host.
 */
export interface FileBackend {
    /** The backend's directory (the one holding `.pulumi`). */
    readonly root: string;
    /** `organization/<project>/<stack>` (project-scoped layout) or `<stack>` (the legacy one). */
    readonly stackPath: string;
}

const BOOKKEEPING = ".pulumi";

/** The backend directory of a `file://` URL; undefined for any other backend. */
export function fileBackendRoot(url: string): string | undefined {
    if (!url.startsWith("file://")) return undefined;
    const parsed = new URL(url);
    // `pulumi login --local` is file://~ (the home directory).
    const dir = decodeURIComponent(parsed.pathname);
    return dir === "/~" || dir === "~" ? (process.env.HOME ?? dir) : dir;
}

/**
 * The stack's layout: `.pulumi/meta.yaml` with `version: 1` is the project-scoped one; a backend
 * without it (or at version 0) keeps the legacy layout, which names stacks without their project.
 */
export function locateStack(root: string, project: string, stack: string): FileBackend {
    const meta = path.join(root, BOOKKEEPING, "meta.yaml");
    const version = fs.existsSync(meta) ? Number(/^version:\s*(\d+)/m.exec(fs.readFileSync(meta, "utf8"))?.[1] ?? 0) : 0;
    return { root, stackPath: version >= 1 ? `organization/${project}/${stack}` : stack };
}

/** The stack's checkpoint candidates (plain, gzip, zstd) and its lock directory. */
function checkpointBase(b: FileBackend): string {
    const parts = b.stackPath.split("/");
    // organization/<project>/<stack> lives at stacks/<project>/<stack>.json.
    const rel = parts.length === 3 ? path.join(parts[1], parts[2]) : parts[0];
    return path.join(b.root, BOOKKEEPING, "stacks", `${rel}.json`);
}

export function lockDir(b: FileBackend): string {
    return path.join(b.root, BOOKKEEPING, "locks", ...b.stackPath.split("/"));
}

function historyDir(b: FileBackend): string {
    const parts = b.stackPath.split("/");
    return path.join(b.root, BOOKKEEPING, "history", ...(parts.length === 3 ? parts.slice(1) : parts));
}

/** The stack's checkpoint file that exists, newest first (Pulumi reads the most recently written variant). */
export function checkpointFile(b: FileBackend): string | undefined {
    const base = checkpointBase(b);
    return [base, `${base}.gz`, `${base}.zst`]
        .filter((f) => fs.existsSync(f))
        .sort((x, y) => fs.statSync(y).mtimeMs - fs.statSync(x).mtimeMs)[0];
}

/** The stack's lock files, as Pulumi writes them: `{pid, username, hostname, timestamp}`. */
export function readLocks(b: FileBackend): LockOwner[] {
    const dir = lockDir(b);
    if (!fs.existsSync(dir)) return [];
    return fs
        .readdirSync(dir)
        .filter((f) => f.endsWith(".json"))
        .map((f) => {
            const file = path.join(dir, f);
            try {
                const lock = JSON.parse(fs.readFileSync(file, "utf8")) as Record<string, unknown>;
                return {
                    where: file,
                    ...(typeof lock.pid === "number" ? { pid: lock.pid } : {}),
                    ...(typeof lock.username === "string" ? { username: lock.username } : {}),
                    ...(typeof lock.hostname === "string" ? { hostname: lock.hostname } : {}),
                    ...(typeof lock.timestamp === "string" ? { timestamp: lock.timestamp } : {}),
                };
            } catch (error) {
                return { where: file, unreadable: `the lock file cannot be read (${(error as Error).message})` };
            }
        });
}

/** Removes a lock and its sidecar, as `pulumi cancel` does for this backend. */
export function removeLock(lock: LockOwner): void {
    fs.rmSync(`${lock.where}.attrs`, { force: true });
    fs.rmSync(lock.where, { force: true });
}

/** A sidecar that fileblob cannot decode, and the blob it describes. */
export interface TornAttrs {
    readonly attrs: string;
    readonly blob: string;
    /** "empty" or the JSON error. */
    readonly problem: string;
}

/** The sidecars the stack's commands read (the backend's metadata, the checkpoint and its backup, locks, history) that fileblob would fail to decode. */
export function tornAttrs(b: FileBackend): TornAttrs[] {
    const base = checkpointBase(b);
    const blobs = [
        path.join(b.root, BOOKKEEPING, "meta.yaml"),
        base,
        `${base}.gz`,
        `${base}.zst`,
        `${base}.bak`,
        `${base}.gz.bak`,
        `${base}.zst.bak`,
    ];
    for (const dir of [lockDir(b), historyDir(b)]) {
        if (!fs.existsSync(dir)) continue;
        blobs.push(
            ...fs
                .readdirSync(dir)
                .filter((f) => !f.endsWith(".attrs"))
                .map((f) => path.join(dir, f)),
        );
    }
    const out: TornAttrs[] = [];
    for (const blob of blobs) {
        const attrs = `${blob}.attrs`;
        if (!fs.existsSync(attrs)) continue;
        const text = fs.readFileSync(attrs, "utf8");
        let problem: string | undefined;
        if (text.trim() === "") problem = "empty";
        else {
            try {
                const parsed: unknown = JSON.parse(text);
                if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) problem = "not a JSON object";
            } catch (error) {
                problem = (error as Error).message;
            }
        }
        if (problem) out.push({ attrs, blob, problem });
    }
    return out;
}

/** Where the repaired sidecars' old contents go: beside Pulumi's own checkpoint backups. */
export function backupDir(b: FileBackend, now: Date): string {
    return path.join(b.root, BOOKKEEPING, "backups", "recover", now.toISOString().replace(/[:.]/g, "-"));
}

/**
 * Backs the sidecar up, then writes what fileblob writes for the blob as it is now (its MD5 and
 * content type; fileblob reads both, verifies neither). A sidecar whose blob is gone is removed:
 * fileblob reads a missing sidecar as "no attributes".
 */
export function repairAttrs(t: TornAttrs, backups: string, root: string): string {
    const copy = path.join(backups, path.relative(root, t.attrs));
    fs.mkdirSync(path.dirname(copy), { recursive: true });
    fs.copyFileSync(t.attrs, copy);
    if (!fs.existsSync(t.blob)) {
        fs.rmSync(t.attrs);
        return copy;
    }
    const content = fs.readFileSync(t.blob);
    const attrs = {
        "user.cache_control": "",
        "user.content_disposition": "",
        "user.content_encoding": "",
        "user.content_language": "",
        "user.content_type": t.blob.endsWith(".gz") || t.blob.endsWith(".zst") ? "application/octet-stream" : "text/plain; charset=utf-8",
        "user.metadata": null,
        md5: crypto.createHash("md5").update(content).digest("base64"),
    };
    const tmp = `${t.attrs}.recover-tmp`;
    fs.writeFileSync(tmp, `${JSON.stringify(attrs)}\n`);
    fs.renameSync(tmp, t.attrs);
    return copy;
}

/** Why the checkpoint itself cannot be read (undefined when it can, or is zstd, which only Pulumi reads). */
export function unreadableCheckpoint(file: string): string | undefined {
    if (file.endsWith(".zst")) return undefined;
    try {
        const raw = fs.readFileSync(file);
        JSON.parse((file.endsWith(".gz") ? zlib.gunzipSync(raw) : raw).toString("utf8"));
        return undefined;
    } catch (error) {
        return (error as Error).message;
    }
}
