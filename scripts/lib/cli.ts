import * as fs from "node:fs";
import { parseArgs, ParseArgsConfig } from "node:util";

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

/** Node's own parser, strict: an unknown option or a missing value is a UsageError. */
export function parseOptions<T extends Options>(argv: readonly string[], options: T) {
    try {
        return parseArgs({ args: [...argv], options, strict: true, allowPositionals: false }).values;
    } catch (error) {
        throw new UsageError((error as Error).message);
    }
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

/** Writes the whole file or nothing: a reader never sees half a render. */
export function writeAtomically(file: string, text: string): void {
    const tmp = `${file}.${process.pid}.tmp`;
    try {
        fs.writeFileSync(tmp, text);
        fs.renameSync(tmp, file);
    } catch (error) {
        fs.rmSync(tmp, { force: true });
        throw error;
    }
}
