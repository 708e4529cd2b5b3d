/**
 * What the fleet's tests share: where the fleet project is, its example stack's config, an
 * environment to vary, and the lines a rejected fleet file prints.
 */
import * as path from "node:path";
import { ConfigError, formatProblem } from "../../config/model/errors";
import { parseFleet } from "../../fleet/settings/parse";
import { FLEET_PROJECT } from "../../fleet/settings/project";
import { runProgram, type ProgramRun, type RecordedResource } from "../../scripts/lib/mock-engine";
import { stackConfig, type StackConfig } from "../../scripts/lib/stack-config";

export const FLEET_ROOT = path.resolve(__dirname, "..", "..", "fleet");
export const ENVIRONMENTS_KEY = `${FLEET_PROJECT}:environments`;

/** The committed example fleet (fleet/Pulumi.example.yaml), as the engine would hand it over. */
export function exampleConfig(): StackConfig {
    return stackConfig("example", FLEET_ROOT).config;
}

/** A complete environment, pinned to a commit, with its state in S3 and KMS: tests change one thing in it. */
export function environment(over: Record<string, unknown> = {}): Record<string, unknown> {
    return {
        stack: "dev",
        source: {
            git: { repo: "https://github.com/example-org/nvcf-self-managed.git", commit: "3f2c1b0a9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b" },
        },
        backend: "s3://example-nvcf-state/fleet",
        secretsProvider: "awskms://alias/nvcf-state?region=us-west-2",
        ...over,
    };
}

/** An on-premises environment: state in PostgreSQL, its password and the passphrase from Secrets. */
export function onPremEnvironment(over: Record<string, unknown> = {}): Record<string, unknown> {
    return environment({
        stack: "onprem",
        backend: "postgres://pulumi@db.example.internal:5432/state?sslmode=verify-full",
        secretsProvider: "passphrase",
        secrets: {
            passphrase: { name: "nvcf-onprem", key: "passphrase" },
            env: { PGPASSWORD: { name: "nvcf-state-db", key: "password" } },
        },
        ...over,
    });
}

/**
 * The problem lines the fleet program prints for these environments (and other keys), as
 * `Invalid stack configuration:` lists them; [] when the file is accepted.
 */
export function problemLines(environments: unknown, other: { values?: Record<string, unknown>; unknownKeys?: string[] } = {}): string[] {
    try {
        parseFleet({ values: { environments, ...other.values }, unknownKeys: other.unknownKeys ?? [] });
        return [];
    } catch (error) {
        if (!(error instanceof ConfigError)) throw error;
        return error.problems.map(formatProblem);
    }
}

/** The fleet program run under Pulumi's mocks with this config (scripts/lib/mock-engine.ts). */
export function runFleet(config: StackConfig): Promise<ProgramRun> {
    return runProgram(config, [], "test", FLEET_ROOT);
}

/** The one resource of this type and name, or a failure naming what there is. */
export function resource(run: ProgramRun, type: string, name: string): RecordedResource {
    const found = run.resources.filter((r) => r.type === type && r.name === name);
    if (found.length !== 1) {
        throw new Error(`${found.length} resources ${type} ${name}; have ${run.resources.map((r) => `${r.type} ${r.name}`).join(", ")}`);
    }
    return found[0];
}
