/**
 * NVIDIA's bundle, run for real: `helmfile write-values` and `helmfile list` over the whole
 * `helmfile.d` of a checkout of NVIDIA/nvcf, with helm and helmfile built from the Go module
 * proxy (scripts/parity/build-tools.sh). Nothing of NVIDIA's is kept in this repository: the
 * checkout's path is given at run time, and it is copied to a temporary directory per run, as
 * NVIDIA's own stack tests do (the self-managed helmfile reaches the observability one by a
 * relative path, and every stack needs an environment file of the run's name).
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { parse } from "yaml";
import { PINNED_BUNDLE, type ParityTools } from "../../scripts/parity/tools";

/** One release as Helmfile would install it. */
export interface BundleRelease {
    readonly name: string;
    readonly namespace: string;
    /** The chart's name, without its repository (`helm-nvcf-api`, `nvcf-otel-collector`). */
    readonly chart: string;
    /** "" for a chart from a local directory. */
    readonly version: string;
    readonly values: Record<string, unknown>;
}

export interface BundleRun {
    /** The stack's directory in the copy (for reading its files). */
    readonly stacks: string;
    run(environment: string, env: object, secrets: object, stateValues: Record<string, string>): BundleRelease[];
    cleanup(): void;
}

/** A copy of the checkout's stacks, where environments are written and Helmfile runs. */
export function bundle(tools: ParityTools): BundleRun {
    const work = fs.mkdtempSync(path.join(os.tmpdir(), "nvcf-parity-"));
    const stacks = path.join(work, "stacks");
    fs.cpSync(path.join(tools.checkout, "deploy", "stacks"), stacks, { recursive: true });
    const version = fs.readFileSync(path.join(stacks, "self-managed", "VERSION"), "utf8").trim();
    if (version !== PINNED_BUNDLE.version) {
        throw new Error(`the checkout's self-managed stack is VERSION ${version}; this program follows ${PINNED_BUNDLE.version}`);
    }
    const helmEnv = {
        ...process.env,
        HELM_CACHE_HOME: path.join(work, "helm", "cache"),
        HELM_CONFIG_HOME: path.join(work, "helm", "config"),
        HELM_DATA_HOME: path.join(work, "helm", "data"),
        HELMFILE_CACHE_HOME: path.join(work, "helmfile-cache"),
    };
    return {
        stacks,
        run(environment, env, secrets, stateValues) {
            // Every stack the run reaches reads ../environments/<name>.yaml: the others get an empty one.
            for (const stack of fs.readdirSync(stacks)) {
                const dir = path.join(stacks, stack, "environments");
                if (fs.existsSync(dir)) fs.writeFileSync(path.join(dir, `${environment}.yaml`), "{}\n");
            }
            fs.writeFileSync(path.join(stacks, "self-managed", "environments", `${environment}.yaml`), JSON.stringify(env, null, 2));
            fs.mkdirSync(path.join(stacks, "self-managed", "secrets"), { recursive: true });
            fs.writeFileSync(path.join(stacks, "self-managed", "secrets", `${environment}-secrets.yaml`), JSON.stringify(secrets, null, 2));
            const out = path.join(work, "out", environment);
            const common = [
                "--helm-binary",
                tools.helm,
                "--file",
                path.join(stacks, "self-managed", "helmfile.d"),
                "--environment",
                "default",
                ...Object.entries(stateValues).flatMap(([k, v]) => ["--state-values-set", `${k}=${v}`]),
            ];
            const helmfile = (args: string[]) => {
                const res = spawnSync(tools.helmfile, [...common, ...args], {
                    env: { ...helmEnv, HELMFILE_ENV: environment },
                    encoding: "utf8",
                    maxBuffer: 1 << 28,
                });
                if (res.status !== 0) throw new Error(`helmfile ${args[0]} (${environment}) failed:\n${res.stderr}${res.stdout}`);
                return res.stdout;
            };
            const listed = JSON.parse(helmfile(["list", "--skip-charts", "--output", "json"])) as {
                name: string;
                namespace: string;
                enabled: boolean;
                chart: string;
                version: string;
            }[];
            // --skip-deps: no `helm repo add` (an https chart source would need the network).
            helmfile(["write-values", "--skip-deps", "--output-file-template", `${out}/{{ .Release.Name }}.yaml`]);
            return listed
                .filter((r) => r.enabled)
                .map((r) => ({
                    name: r.name,
                    namespace: r.namespace,
                    chart: path.basename(r.chart),
                    version: r.version,
                    values: (parse(fs.readFileSync(path.join(out, `${r.name}.yaml`), "utf8")) ?? {}) as Record<string, unknown>,
                }));
        },
        cleanup() {
            fs.rmSync(work, { recursive: true, force: true });
        },
    };
}
