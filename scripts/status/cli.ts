import * as path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { Io, parseOptions, readCommandLine, reportUsageError, required, UsageError } from "../lib/cli";
import { checkPlaneNames, givenKubeconfigs, KUBECONFIG_OPTIONS } from "../lib/kubeconfig-options";
import { hasStack, stackFile } from "../lib/stack-file";
import { withoutSourceMaps } from "../lib/source-maps";
import type { Connect, StatusReport } from "./run";
import type { GivenKubeconfigs } from "./targets";

const USAGE =
    "usage: npm run --silent status -- --stack <name> [--drift] [--json] [--watch [seconds]] [--dir <program directory>]\n" +
    "                                  [--kubeconfig <file>] [--context <name>] [--kubeconfig-for <plane>=<file>]...\n";

const HELP =
    USAGE +
    "\nThe stack's clusters, read-only: preflight, the health gate, the Helm releases against the stack's, and\n" +
    "their objects against what Helm recorded (compared in a server-side dry-run, which writes nothing).\n" +
    "  --stack <name>                  the stack file Pulumi.<name>.yaml (required; its secrets are never decrypted)\n" +
    "  --drift                         a line per release, and each field that differs, with the manager that changed it\n" +
    "  --json                          JSON instead of the table (one line per round with --watch)\n" +
    "  --watch [seconds]               check again every <seconds> (default 10) until interrupted\n" +
    "  --dir <directory>               the program's directory (default: the current one)\n" +
    "  --kubeconfig <file>             the control plane's kubeconfig (default: $KUBECONFIG or ~/.kube/config,\n" +
    "                                  unless the stack's kubeconfig is a secret or an EKS cluster's)\n" +
    "  --context <name>                the control plane's context (default: the stack's cluster.context)\n" +
    "  --kubeconfig-for <plane>=<file> a compute plane's kubeconfig (needed for one in the computePlaneKubeconfigs\n" +
    "                                  secret or on EKS; a plane's own context, if set, is used)\n" +
    "Exit: 0 every check passed, 1 a check failed, 2 usage, a stack file or config the program rejects, a cluster\n" +
    "that did not answer, or no cluster could be checked. A cluster not checked (SKIP) does not fail the run by itself.\n";

const OPTIONS = {
    stack: { type: "string" },
    dir: { type: "string" },
    json: { type: "boolean" },
    drift: { type: "boolean" },
    watch: { type: "string" },
    ...KUBECONFIG_OPTIONS,
} as const;

/** `--watch` with no number (last, or before another option) takes the default interval. */
export const DEFAULT_WATCH_SECONDS = 10;

function withWatchDefault(argv: readonly string[]): string[] {
    return argv.flatMap((arg, i) =>
        arg === "--watch" && (i === argv.length - 1 || argv[i + 1].startsWith("-")) ? [arg, String(DEFAULT_WATCH_SECONDS)] : [arg],
    );
}

export interface StatusDeps {
    /** How a cluster's access becomes a client (the tests' fake API server is reached the real way). */
    readonly connect?: Connect;
    /** Ends --watch after the current round (the script aborts it on Ctrl-C). */
    readonly signal?: AbortSignal;
}

interface Options {
    readonly stack: string;
    readonly root: string;
    readonly json: boolean;
    readonly drift: boolean;
    readonly watchSeconds?: number;
    readonly given: GivenKubeconfigs;
}

function parse(argv: readonly string[]): Options {
    const values = parseOptions(withWatchDefault(argv), OPTIONS);
    const stack = required("stack", values.stack);
    const root = path.resolve(values.dir ?? process.cwd());
    if (!hasStack(root, stack)) throw new UsageError(`no stack file ${stackFile(root, stack)}`);
    let watchSeconds: number | undefined;
    if (values.watch !== undefined) {
        watchSeconds = Number(values.watch);
        if (!Number.isInteger(watchSeconds) || watchSeconds < 1) {
            throw new UsageError(`--watch takes a whole number of seconds, at least 1; given ${JSON.stringify(values.watch)}`);
        }
    }
    return {
        stack,
        root,
        json: values.json === true,
        drift: values.drift === true,
        ...(watchSeconds !== undefined ? { watchSeconds } : {}),
        given: givenKubeconfigs(values),
    };
}

/**
 * `npm run status`: the stack's clusters checked once (or every N seconds with --watch), the
 * table or JSON on stdout, the exit code of the last round. Read-only: the checks only GET
 * (and ask the API server what the kubeconfig's identity may do).
 */
export async function statusCli(
    argv: readonly string[],
    io: Io,
    env: NodeJS.ProcessEnv = process.env,
    deps: StatusDeps = {},
): Promise<number> {
    const line = readCommandLine(argv, io, env, { script: "status", optionNames: Object.keys(OPTIONS), help: HELP, usage: USAGE, parse });
    if ("exit" in line) return line.exit;
    const options: Options = line.options;
    // Loaded only now: the program's modules take a second or two, and a typo above should fail at once.
    const [{ stackSettings }, { statusTargets }, { connectWithKubeconfig, exitCode, statusRound }, { formatStatusJson, formatTable }] =
        await withoutSourceMaps(() =>
            Promise.all([import("../lib/stack-settings"), import("./targets"), import("./run"), import("./format")]),
        );
    let targets;
    try {
        const { settings, secretKeys } = stackSettings(options.root, options.stack);
        checkPlaneNames(
            options.given,
            settings.computePlanes.map((p) => p.clusterName),
        );
        targets = statusTargets(settings, secretKeys, options.given);
    } catch (error) {
        if (error instanceof UsageError) return reportUsageError(io, error.message, USAGE, undefined);
        io.err(`status: ${(error as Error).message}\n`);
        return 2;
    }
    const connect = deps.connect ?? connectWithKubeconfig;
    const print = (report: StatusReport) =>
        io.out(options.json ? formatStatusJson(report, options.watchSeconds !== undefined) : formatTable(report));
    for (;;) {
        const report = await statusRound(targets, connect, { stack: options.stack, drift: options.drift ? "details" : "summary" });
        print(report);
        const code = exitCode(report);
        if (options.watchSeconds === undefined || deps.signal?.aborted) return code;
        if (!options.json) io.out("\n");
        try {
            await sleep(options.watchSeconds * 1000, undefined, { signal: deps.signal });
        } catch {
            // Interrupted while waiting: the last round's answer stands.
            return code;
        }
    }
}
