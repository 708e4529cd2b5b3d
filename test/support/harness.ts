/**
 * What the tests use to run the program: the mock engine (scripts/lib/mock-engine.ts), through
 * program-runs.ts for runs expected to succeed, and the dev stack's config, re-exported, plus
 * helpers to pick releases out of a run.
 */
import type { ProgramRun, RecordedResource } from "../../scripts/lib/mock-engine";

export { runProgramExpectingError, type ProgramRun, type RecordedResource } from "../../scripts/lib/mock-engine";
export { runProgram } from "./program-runs";
export { devConfig, PROJECT } from "../../scripts/lib/dev-stack";
export { isSecretAt } from "../../scripts/lib/secret-envelope";
export { stackConfig, withConfig, type StackConfig } from "../../scripts/lib/stack-config";

export const RELEASE_TYPE = "kubernetes:helm.sh/v3:Release";

export function releases(run: ProgramRun): RecordedResource[] {
    return run.resources.filter((r) => r.type === RELEASE_TYPE);
}

export function release(run: ProgramRun, name: string): RecordedResource {
    const found = releases(run).find((r) => r.inputs.name === name);
    if (!found)
        throw new Error(
            `no release ${name}; have ${releases(run)
                .map((r) => r.inputs.name)
                .join(", ")}`,
        );
    return found;
}

export function valuesOf(run: ProgramRun, name: string): Record<string, any> {
    return release(run, name).inputs.values as Record<string, any>;
}
