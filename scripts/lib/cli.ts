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
    return (values ?? []).flatMap((v) => v.split(",")).map((v) => v.trim()).filter((v) => v !== "");
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
