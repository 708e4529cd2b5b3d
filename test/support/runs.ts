import { devWith, runDevExpectingError } from "../../scripts/lib/dev-stack";
import type { StackConfig } from "../../scripts/lib/stack-config";
import { runProgram } from "./program-runs";

export { runDevExpectingError };

/** The dev stack with `controlPlane` overrides (and other project keys), run as program-runs.ts runs it. */
export function runDev(controlPlane: StackConfig = {}, other: StackConfig = {}) {
    const { config, secretKeys } = devWith(controlPlane, other);
    return runProgram(config, secretKeys);
}
