/**
 * `npm run bench:install`'s command line, kept apart from the benchmark (install-bench.ts): its
 * help and usage errors answer at once, without loading what the benchmark runs on (the
 * Kubernetes client, the program's catalog, the end-to-end tools), which took seconds.
 */
import { parseOptions, readCommandLine, UsageError, type CommandLine, type Io } from "../../scripts/lib/cli";

const DEFAULT_SCALE = 5;
const DEFAULT_RUNS = 3;
const FLEETS = [1, 3, 10] as const;

/** What the benchmark is asked to do. */
export interface InstallBenchOptions {
    /** What each release's delay is divided by. */
    readonly scale: number;
    /** The sizes of the GPU fleets measured after the one environment (none with --no-fleet). */
    readonly fleets: readonly number[];
    /** How many times each side installs each: the median and the spread are reported. */
    readonly runs: number;
}

const USAGE = "usage: npm run bench:install [-- --scale <n>] [--runs <n>] [--no-fleet]\n";
const HELP =
    USAGE +
    "\nInstalls the dev stack's control plane twice, each on a new local API server with the real ReplicaSet and\n" +
    "Job controllers: with pulumi up, and with NVIDIA's Helmfile (helmfile --sequential-helmfiles sync over the\n" +
    "bundle's deploy/stacks/self-managed), on the same fixture charts from one local OCI registry. Each release's\n" +
    "pods become Ready, and its hook Jobs complete, after its delay (test/e2e/install-bench.ts) divided by --scale\n" +
    `(default ${DEFAULT_SCALE}). Then fleets of ${FLEETS.join(", ")} GPU clusters (each its own API server): one pulumi up against\n` +
    "NVIDIA's compute-plane Helmfile run on each cluster one after another, with the registration, the SMB CSI\n" +
    "driver and the inotify DaemonSet the program also installs (--no-fleet leaves the fleets out).\n" +
    `Each side installs each --runs times (default ${DEFAULT_RUNS}, taking turns); prints each side's median and spread,\n` +
    "the ratio of the medians, and the program's floor (its longest weighted chain) with its time's ratio to it.\n" +
    "Needs scripts/e2e/build-tools.sh, scripts/parity/build-tools.sh (helm, helmfile, registry) and NVCF_BUNDLE.\n" +
    "Exit: 0 measured, 1 a tool is missing or an install failed, 2 usage error.\n";

const OPTIONS = { scale: { type: "string" }, runs: { type: "string" }, "no-fleet": { type: "boolean" } } as const;

function parse(argv: readonly string[]): InstallBenchOptions {
    const values = parseOptions(argv, OPTIONS);
    const scale = values.scale === undefined ? DEFAULT_SCALE : Number(values.scale);
    if (!Number.isFinite(scale) || scale <= 0) throw new UsageError(`--scale must be a positive number; given "${values.scale}"`);
    const runs = values.runs === undefined ? DEFAULT_RUNS : Number(values.runs);
    if (!Number.isInteger(runs) || runs < 1) throw new UsageError(`--runs must be a whole number of at least 1; given "${values.runs}"`);
    return { scale, runs, fleets: values["no-fleet"] ? [] : FLEETS };
}

/** The options, or the exit code once the help (0) or a usage error (2) is printed. */
export function installBenchCommandLine(argv: readonly string[], io: Io, env: NodeJS.ProcessEnv): CommandLine<InstallBenchOptions> {
    return readCommandLine(argv, io, env, { script: "bench:install", optionNames: Object.keys(OPTIONS), help: HELP, usage: USAGE, parse });
}
