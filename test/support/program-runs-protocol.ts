/**
 * What program-runs.ts and its child send each other. A module without side effects: the child
 * imports it, and importing program-runs.ts starts children.
 */
import type { ProgramRun } from "../../scripts/lib/mock-engine";
import type { StackConfig } from "../../scripts/lib/stack-config";

/** A run the test process asks for. */
export interface Request {
    readonly id: number;
    readonly config: StackConfig;
    readonly secretKeys: string[];
    readonly stack: string;
}

/** The console methods a run writes with (the SDK's log under the mocks uses log, warn and error). */
export const CONSOLE_METHODS = ["log", "info", "warn", "error", "debug"] as const;

/** A line a run wrote to the console, formatted. */
export interface Logged {
    readonly method: (typeof CONSOLE_METHODS)[number];
    readonly text: string;
}

/** What the child answers: the run, or the message of what the program threw; and what the run logged. */
export type Answer = { id: number; logged: Logged[] } & ({ run: ProgramRun } | { error: { name: string; message: string } });
