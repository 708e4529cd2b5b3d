/**
 * The dynamic providers' serialized code, kept on disk for the mock engine (render, plan-diff,
 * the bench, the tests). Pulumi sends each dynamic resource its provider as code: the SDK's
 * closure serialization walks everything the provider captures, asks V8 for each function's
 * scopes and parses each function's text. That costs 0.3 to 1.7 s per provider, and every
 * process that runs the program (each unit-test worker, each render, both sides of a plan-diff)
 * paid it for the same code. The text is a function of that code: the local modules the
 * provider's module loads (inlined), the installed packages (referenced by `require`), the SDK
 * that writes it and V8's function text. The key hashes all of them, so an edit of any module
 * the provider could capture is a new key, while an edit elsewhere in the program is not.
 * What it cannot see is state a provider would read from a mutable module variable filled at
 * run time: the SDK's own cache (one text per provider object per process) assumes the same.
 * Texts that capture a secret are never stored. Under `pulumi up` the SDK serializes as always.
 */
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { REPO_ROOT } from "./repo";

/**
 * Where the texts are kept: the user's cache folder, as for this project's other tools
 * (.ci/run's Node.js and actionlint). Keys are content hashes, so checkouts share it safely.
 */
export const DEFAULT_CLOSURE_CACHE_DIR = path.join(
    process.env.XDG_CACHE_HOME || path.join(os.homedir(), ".cache"),
    "nvcf-self-managed",
    "closures",
);

let dir: string | undefined = DEFAULT_CLOSURE_CACHE_DIR;

/** Keeps texts in `to` from now on; `undefined` turns the cache off (every provider serialized afresh). */
export function useClosureCache(to: string | undefined): void {
    dir = to;
}

const sha256 = (text: string | Buffer) => createHash("sha256").update(text).digest("hex");

/** The installed packages' versions, as the lockfile pins them (read once: npm ci does not run mid-process). */
let lockDigest: string | undefined;
function installedPackages(): string {
    lockDigest ??= sha256(fs.readFileSync(path.join(REPO_ROOT, "package-lock.json")));
    return lockDigest;
}

const SDK_VERSION = (JSON.parse(fs.readFileSync(require.resolve("@pulumi/pulumi/package.json"), "utf8")) as { version: string }).version;

const isLocal = (file: string) => !file.split(path.sep).includes("node_modules");

/** Digests by loaded module: a module reloaded (another revision's program) is a new object. */
const digests = new WeakMap<NodeModule, string>();
/** Each loaded module's file content digest: the providers' module graphs share most modules. */
const contents = new WeakMap<NodeModule, string>();

function contentDigest(loaded: NodeModule): string {
    let digest = contents.get(loaded);
    if (digest === undefined) contents.set(loaded, (digest = sha256(fs.readFileSync(loaded.filename))));
    return digest;
}

/**
 * What the code of the loaded module `file` is: the path (relative to `root`, the program's
 * directory, so that two checkouts agree) and content digest of every module it loads outside
 * node_modules, following require.cache's `children`, plus the lockfile, the SDK and Node.
 * Taken once per loaded module, as near its load as the engine can.
 */
export function codeDigest(file: string, root: string): string {
    const top = require.cache[file];
    if (!top) throw new Error(`${file} is not loaded: the closure cache keys code only once it is loaded`);
    const known = digests.get(top);
    if (known !== undefined) return known;
    const seen = new Set<NodeModule>();
    const pending = [top];
    const parts: string[] = [];
    while (pending.length > 0) {
        const loaded = pending.pop()!;
        if (seen.has(loaded)) continue;
        seen.add(loaded);
        parts.push(`${path.relative(root, loaded.filename)} ${contentDigest(loaded)}`);
        pending.push(...loaded.children.filter((child) => isLocal(child.filename)));
    }
    parts.sort();
    const digest = sha256([`node ${process.version}`, `@pulumi/pulumi ${SDK_VERSION}`, `lock ${installedPackages()}`, ...parts].join("\n"));
    digests.set(top, digest);
    return digest;
}

/** The program's local module under `root` that exports `provider`'s class, if one does. */
export function definingModule(provider: object, root: string): string | undefined {
    const prefix = root + path.sep;
    for (const [file, loaded] of Object.entries(require.cache)) {
        if (!loaded || !file.startsWith(prefix) || !isLocal(path.relative(root, file))) continue;
        const exported = loaded.exports as unknown;
        if (typeof exported === "object" && exported !== null && Object.values(exported).includes(provider.constructor)) return file;
    }
    return undefined;
}

/** A serialized provider, as the SDK's serializeFunction returns it. */
export interface SerializedText {
    readonly text: string;
    readonly containsSecrets: boolean;
}

/**
 * The key of one provider of the program whose entry module is `entry`: the code of the module
 * that defines its class (of the whole program when none exports it), its class name, its own
 * fields and how the SDK asked (`how`).
 */
export function providerKey(entry: string, provider: object, how: string): string | undefined {
    let fields: string;
    try {
        fields = JSON.stringify(provider);
    } catch {
        // Fields that do not serialize as JSON (a cycle): no key, so no caching.
        return undefined;
    }
    const root = path.dirname(entry);
    const code = codeDigest(definingModule(provider, root) ?? entry, root);
    return sha256([code, provider.constructor.name, fields, how].join("\n"));
}

/** The text stored under `key`, or undefined (none, cache off, or unreadable). */
export function cachedText(key: string): string | undefined {
    if (dir === undefined) return undefined;
    try {
        const file = path.join(dir, `${key}.js`);
        const text = fs.readFileSync(file, "utf8");
        // Marked as used: pruning drops the least recently used texts.
        const now = new Date();
        fs.utimesSync(file, now, now);
        return text;
    } catch {
        return undefined;
    }
}

/** Stores `serialized` under `key` unless it holds a secret; a cache that cannot be written is skipped. */
export function storeText(key: string, serialized: SerializedText): void {
    if (dir === undefined || serialized.containsSecrets) return;
    try {
        fs.mkdirSync(dir, { recursive: true });
        // Renamed into place: a process reading concurrently sees the whole text or none.
        const temporary = path.join(dir, `${key}.${process.pid}.tmp`);
        fs.writeFileSync(temporary, serialized.text);
        fs.renameSync(temporary, path.join(dir, `${key}.js`));
        prune(dir);
    } catch {
        // A folder that cannot be written: serialize every time, as without the cache.
    }
}

/** How many texts the folder keeps (six providers a revision: the last forty or so revisions). */
export const CLOSURE_CACHE_KEPT = 256;
const KEPT = CLOSURE_CACHE_KEPT;

/** Drops the least recently used texts beyond KEPT, so that the folder does not grow without end. */
function prune(folder: string): void {
    const texts = fs.readdirSync(folder).filter((f) => f.endsWith(".js"));
    if (texts.length <= KEPT) return;
    const byAge = texts.map((f) => ({ f, t: fs.statSync(path.join(folder, f)).mtimeMs })).sort((a, b) => a.t - b.t);
    for (const { f } of byAge.slice(0, texts.length - KEPT)) fs.rmSync(path.join(folder, f), { force: true });
}
