import { devConfig, PROJECT, ProgramRun, runProgram, runProgramExpectingError, StackConfig, withConfig } from "./harness";

/** The dev stack with `controlPlane` overrides (and other project keys), run under mocks. */
export function runDev(controlPlane: StackConfig = {}, other: StackConfig = {}): Promise<ProgramRun> {
    const { config, secretKeys } = devWith(controlPlane, other);
    return runProgram(config, secretKeys);
}

/** The same, expecting the program to stop with an error. */
export function runDevExpectingError(controlPlane: StackConfig = {}, other: StackConfig = {}) {
    const { config, secretKeys } = devWith(controlPlane, other);
    return runProgramExpectingError(config, secretKeys);
}

function devWith(controlPlane: StackConfig, other: StackConfig) {
    const { config, secretKeys } = devConfig();
    const prefixed = Object.fromEntries(Object.entries(other).map(([k, v]) => [k.includes(":") ? k : `${PROJECT}:${k}`, v]));
    return { config: withConfig(config, { [`${PROJECT}:controlPlane`]: controlPlane, ...prefixed }), secretKeys };
}
