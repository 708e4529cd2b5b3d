import * as fs from "node:fs";
import * as path from "node:path";
import { Io, parseOptions, readCommandLine, required, UsageError } from "../lib/cli";
import { withoutSourceMaps } from "../lib/source-maps";
import type { KubeAccess } from "../../lib/cluster-access/access";
import type { Kube } from "../../lib/kubernetes/client";

const USAGE =
    "usage: npm run --silent fleet -- status --stack <fleet stack> [--dir <fleet directory>] [--kubeconfig <file>] [--context <name>]\n";

const HELP =
    USAGE +
    "\nEach environment of the fleet file, read-only: its pulumi.com/v1 Stack's last update (state, commit, time,\n" +
    "message), whether it runs, waits on a prerequisite or is stalled, and, for a file:// backend, who holds its lock.\n" +
    "  status                 the only subcommand\n" +
    "  --stack <name>         the fleet file Pulumi.<name>.yaml in the fleet directory (required)\n" +
    "  --dir <directory>      the fleet project's directory (default: ./fleet)\n" +
    "  --kubeconfig <file>    the operator's cluster's kubeconfig (default: $KUBECONFIG or ~/.kube/config)\n" +
    "  --context <name>       its context (default: the fleet file's cluster.context, else the current one)\n" +
    "Exit: 0 no environment failed or stalled, 1 one did or has no Stack, 2 usage, a fleet file the fleet program\n" +
    "rejects, a cluster that did not answer, or no Stack CRD there.\n";

const OPTIONS = {
    stack: { type: "string" },
    dir: { type: "string" },
    kubeconfig: { type: "string" },
    context: { type: "string" },
} as const;

interface Options {
    readonly stack: string;
    readonly dir: string;
    readonly kubeconfig?: { readonly file: string; readonly text: string };
    readonly context?: string;
}

function parse(argv: readonly string[]): Options {
    const [sub, ...rest] = argv;
    if (sub !== "status") {
        throw new UsageError(
            sub === undefined ? "a subcommand is required: status" : `unknown subcommand ${JSON.stringify(sub)}: the only one is status`,
        );
    }
    const values = parseOptions(rest, OPTIONS);
    const stack = required("stack", values.stack);
    const dir = path.resolve(values.dir ?? "fleet");
    const file = path.join(dir, `Pulumi.${stack}.yaml`);
    if (!fs.existsSync(file)) throw new UsageError(`no fleet file ${file}`);
    let kubeconfig: Options["kubeconfig"];
    if (values.kubeconfig !== undefined) {
        try {
            kubeconfig = { file: values.kubeconfig, text: fs.readFileSync(values.kubeconfig, "utf8") };
        } catch (error) {
            throw new UsageError(
                `cannot read the kubeconfig ${values.kubeconfig}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
            );
        }
    }
    return { stack, dir, ...(kubeconfig ? { kubeconfig } : {}), ...(values.context !== undefined ? { context: values.context } : {}) };
}

export interface FleetDeps {
    /** How the operator's cluster is reached (the tests' fake API server is reached the real way by default). */
    readonly connect?: (access: KubeAccess) => Promise<Kube>;
}

/** `npm run fleet -- status`: each environment's Stack, one block each, on stdout. */
export async function fleetCli(
    argv: readonly string[],
    io: Io,
    env: NodeJS.ProcessEnv = process.env,
    deps: FleetDeps = {},
): Promise<number> {
    const line = readCommandLine(argv, io, env, { script: "fleet", optionNames: Object.keys(OPTIONS), help: HELP, usage: USAGE, parse });
    if ("exit" in line) return line.exit;
    const options: Options = line.options;
    // Loaded only now: zod, the Kubernetes client and the fleet's schemas take a second; --help must not wait.
    const [{ readFleetFile, fleetEnvironments }, { readFleetStatus }, { fleetStatusLines, fleetExitCode }, { httpKube }, { apiServer }] =
        await withoutSourceMaps(() =>
            Promise.all([
                import("./fleet-file"),
                import("./status"),
                import("./format"),
                import("../../lib/kubernetes/client"),
                import("../../lib/cluster-access/access"),
            ]),
        );
    let fleet;
    try {
        fleet = readFleetFile(options.dir, options.stack);
    } catch (error) {
        io.err(`fleet status: ${(error as Error).message}\n`);
        return 2;
    }
    const access: KubeAccess = {
        ...(options.kubeconfig ? { kubeconfig: options.kubeconfig.text, source: options.kubeconfig.file } : {}),
        ...((options.context ?? fleet.cluster.context) ? { context: options.context ?? fleet.cluster.context } : {}),
    };
    const connect = deps.connect ?? (async (a: KubeAccess) => httpKube(await apiServer(a), { timeoutMs: 10_000, retries: 1 }));
    let report;
    try {
        report = await readFleetStatus(await connect(access), fleetEnvironments(fleet));
    } catch (error) {
        const message = (error as Error).message;
        io.err(`fleet status: ${(error as Error).name === "NoStackCrd" ? message : cannotRead(message)}\n`);
        return 2;
    }
    io.out(`${fleetStatusLines(report).join("\n")}\n`);
    return fleetExitCode(report);
}

/** Why the Stacks could not be read, and what to do. */
function cannotRead(message: string): string {
    return `cannot read the fleet's Stacks: ${message} (check --kubeconfig and --context, and that the API server answers)`;
}
