/**
 * The dev stack (Pulumi.dev.yaml) as the bench and the tests run it: its config with the
 * secrets a user sets before `pulumi up`, optionally with overrides, under the mock engine.
 */
import { runProgram, runProgramExpectingError, type ProgramRun } from "./mock-engine";
import { stackConfig, withConfig, type StackConfig } from "./stack-config";

/** This repository's project name (Pulumi.yaml), the prefix of its config keys. */
export const PROJECT = "nvcf-self-managed";

/** The dev stack's config with the secrets a user sets before `pulumi up`. */
export function devConfig(): { config: StackConfig; secretKeys: string[] } {
    const { config, secretKeys } = stackConfig("dev");
    const key = `${PROJECT}:ngcApiKey`;
    return { config: { ...config, [key]: "nvapi-test-key" }, secretKeys: [...new Set([...secretKeys, key])] };
}

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

/** The dev stack's config with `controlPlane` overrides and other project keys (prefixed when bare). */
export function devWith(controlPlane: StackConfig = {}, other: StackConfig = {}) {
    const { config, secretKeys } = devConfig();
    const prefixed = Object.fromEntries(Object.entries(other).map(([k, v]) => [k.includes(":") ? k : `${PROJECT}:${k}`, v]));
    return { config: withConfig(config, { [`${PROJECT}:controlPlane`]: controlPlane, ...prefixed }), secretKeys };
}
