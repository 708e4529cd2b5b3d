import * as fs from "node:fs";
import * as path from "node:path";
import { parseArgs, ParseArgsConfig } from "node:util";
import { nearestOption } from "./suggest-option";

/** Where a command writes; the tests pass their own to run the commands in-process. */
export interface Io {
    out(text: string): void;
    err(text: string): void;
}

export const processIo: Io = {
    out: (text) => process.stdout.write(text),
    err: (text) => process.stderr.write(text),
};

/** A mistake in the command line: exit 2 with the usage. */
export class UsageError extends Error {}

type Options = NonNullable<ParseArgsConfig["options"]>;

/**
 * Node's own parser, strict: an unknown option or a missing value is a UsageError, and an
 * unknown option close to a known one names it.
 */
export function parseOptions<T extends Options>(argv: readonly string[], options: T) {
    try {
        return parseArgs({ args: [...argv], options, strict: true, allowPositionals: false }).values;
    } catch (error) {
        throw new UsageError(withSuggestion(error as NodeJS.ErrnoException, Object.keys(options)));
    }
}

/** `Unknown option '--fromat'. Did you mean --format?`; Node's message as it is when no option is close. */
function withSuggestion(error: NodeJS.ErrnoException, known: readonly string[]): string {
    // Node names the option in its message only; a short option (`-x`) is one letter, nothing to be near.
    const given = error.code === "ERR_PARSE_ARGS_UNKNOWN_OPTION" ? /^Unknown option '--([^'=]+)'/.exec(error.message)?.[1] : undefined;
    const near = given === undefined ? undefined : nearestOption(given, known);
    return near === undefined ? error.message : `Unknown option '--${given}'. Did you mean --${near}?`;
}

/** `--help` or `-h` anywhere: the usage, exit 0, whatever else the command line holds. */
export function wantsHelp(argv: readonly string[]): boolean {
    return argv.includes("--help") || argv.includes("-h");
}

/**
 * `npm run render --stack dev`, without the `--`: npm takes `--stack` as its own config (it
 * exports it as npm_config_stack) and hands the command only `dev`. Returns a hint naming
 * what npm took and the command line that works, when the command runs as that npm script
 * and npm took one of its options; undefined otherwise.
 */
export function npmTookOptionsHint(
    script: string,
    optionNames: readonly string[],
    argv: readonly string[],
    env: NodeJS.ProcessEnv,
): string | undefined {
    if (env.npm_lifecycle_event !== script) return undefined;
    const taken = optionNames.filter((name) => env[`npm_config_${name.replace(/-/g, "_")}`] !== undefined);
    if (taken.length === 0) return undefined;
    // npm keeps `--stack=dev`'s value, but turns `--stack dev` into a flag and passes `dev` on:
    // with one such flag and one leftover argument they belong together; otherwise a placeholder.
    const positionals = argv.filter((arg) => !arg.startsWith("-"));
    const flags = taken.filter((name) => env[`npm_config_${name.replace(/-/g, "_")}`] === "true");
    const example = taken.map((name) => {
        const value = env[`npm_config_${name.replace(/-/g, "_")}`];
        if (value !== "true") return `--${name} ${value}`;
        return `--${name} ${flags.length === 1 && positionals.length === 1 ? positionals[0] : "<value>"}`;
    });
    return (
        `npm took ${taken.map((name) => `--${name}`).join(", ")} for itself (a \`--\` is missing): ` +
        `npm run ${script} -- ${example.join(" ")}`
    );
}

/** A usage error's report: the message, the usage, and the npm hint when there is one. Exit 2. */
export function reportUsageError(io: Io, message: string, usage: string, hint: string | undefined): number {
    io.err(`${message}\n${hint === undefined ? "" : `${hint}\n`}${usage}`);
    return 2;
}

/** What a command line asks for: its options, or the exit code once its help or a usage error is printed. */
export type CommandLine<T> = { readonly options: T } | { readonly exit: number };

/**
 * How a command starts: `--help` prints `help` (exit 0); a command line `parse` rejects prints
 * the message, npm's hint when npm took an option, and `usage` (exit 2).
 */
export function readCommandLine<T>(
    argv: readonly string[],
    io: Io,
    env: NodeJS.ProcessEnv,
    command: { script: string; optionNames: readonly string[]; help: string; usage: string; parse(argv: readonly string[]): T },
): CommandLine<T> {
    if (wantsHelp(argv)) {
        io.out(command.help);
        return { exit: 0 };
    }
    try {
        return { options: command.parse(argv) };
    } catch (error) {
        const hint = npmTookOptionsHint(command.script, command.optionNames, argv, env);
        return { exit: reportUsageError(io, (error as Error).message, command.usage, hint) };
    }
}

export function oneOf<T extends string>(name: string, value: string | undefined, allowed: readonly T[], fallback: T): T {
    if (value === undefined) return fallback;
    if ((allowed as readonly string[]).includes(value)) return value as T;
    throw new UsageError(`--${name} must be one of ${allowed.join(", ")}; given ${JSON.stringify(value)}`);
}

export function required(name: string, value: string | undefined): string {
    if (value === undefined || value === "") throw new UsageError(`--${name} is required`);
    return value;
}

/** `--assume-secret a --assume-secret b,c` → [a, b, c]. */
export function list(values: readonly string[] | undefined): string[] {
    return (values ?? [])
        .flatMap((v) => v.split(","))
        .map((v) => v.trim())
        .filter((v) => v !== "");
}

/** How a file's text is written: fs.writeFileSync, or a test's failing one. */
export type WriteFile = (file: string, text: string, options: fs.WriteFileOptions) => void;

/** Where `--out` writes: standard output, a regular file replaced whole, or a file written as it is. */
export type OutTarget =
    { readonly kind: "stdout" } | { readonly kind: "replace"; readonly file: string } | { readonly kind: "direct"; readonly file: string };

/** Links the system follows before it gives up with ELOOP (Linux's limit). */
const MAX_LINKS = 40;

/** /proc/self/fd/1 (where /dev/stdout and /dev/fd/1 lead): an open file, whatever path it had. */
const DESCRIPTOR_LINK = /^\/proc\/.+\/fd\/[^/]+$/;

/**
 * Where `--out <out>` goes. `-` is standard output. A regular file, or one that does not exist
 * yet, is replaced whole; through a symlink, the file at the link's end is, and the link stays a
 * link. Anything else is written as it is: a rename over /dev/null, a FIFO or a socket would put a
 * regular file in its place, and a descriptor link (/dev/stdout) names an open file, which a
 * rename over its current path would not reach (`>> log` would lose the log).
 */
export function outTarget(out: string): OutTarget {
    if (out === "-") return { kind: "stdout" };
    let current = out;
    for (let hop = 0; hop < MAX_LINKS; hop++) {
        current = inRealDirectory(current);
        if (DESCRIPTOR_LINK.test(current)) return { kind: "direct", file: out };
        const stat = fs.lstatSync(current, { throwIfNoEntry: false });
        if (stat === undefined || stat.isFile()) return { kind: "replace", file: current };
        if (!stat.isSymbolicLink()) return { kind: "direct", file: out };
        current = path.resolve(path.dirname(current), fs.readlinkSync(current));
    }
    // A loop of links: the open fails with the system's own ELOOP.
    return { kind: "direct", file: out };
}

/**
 * `file` in its directory's real path: a link's relative target is relative to where the link
 * really is, and /dev/fd/1 is /proc/<pid>/fd/1. A missing directory stays as given, for the
 * write to fail on with the system's message.
 */
function inRealDirectory(file: string): string {
    try {
        return path.join(fs.realpathSync.native(path.dirname(file)), path.basename(file));
    } catch {
        return file;
    }
}

/** Writes `text` where `--out <out>` says (outTarget): `-` through `io.out`. */
export function writeOut(out: string, text: string, io: Io, write: WriteFile = fs.writeFileSync): void {
    const target = outTarget(out);
    if (target.kind === "stdout") io.out(text);
    else if (target.kind === "direct") write(target.file, text, { flag: "w" });
    else writeAtomically(target.file, text, write);
}

/**
 * Writes the whole file or nothing: a reader never sees half a render. `file` is a regular file
 * or none (writeOut decides, hence not exported): the text goes to a file beside it, renamed over
 * it once written.
 */
function writeAtomically(file: string, text: string, write: WriteFile = fs.writeFileSync): void {
    const tmp = `${file}.${process.pid}.tmp`;
    const old = fs.statSync(file, { throwIfNoEntry: false });
    try {
        // `wx`: never through a file or link already at that name.
        write(tmp, text, { flag: "wx" });
        if (old !== undefined) keepModeAndOwner(tmp, old);
        fs.renameSync(tmp, file);
    } catch (error) {
        // What `wx` refused is someone else's file: it stays.
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") fs.rmSync(tmp, { force: true });
        throw error;
    }
}

/**
 * The new file keeps the old one's permissions and, when this process may give it away, its
 * owner: root rewriting a user's file leaves it theirs, with its mode.
 */
function keepModeAndOwner(tmp: string, old: fs.Stats): void {
    fs.chmodSync(tmp, old.mode & 0o777);
    if (old.uid === process.getuid?.() && old.gid === process.getgid?.()) return;
    try {
        fs.chownSync(tmp, old.uid, old.gid);
    } catch (error) {
        // Only root may give a file away; anyone else writes a file of their own, as before.
        if ((error as NodeJS.ErrnoException).code !== "EPERM") throw error;
    }
}
