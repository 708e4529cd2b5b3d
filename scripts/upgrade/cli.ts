import * as path from "node:path";
import { Io, list, parseOptions, readCommandLine, reportUsageError, required, UsageError } from "../lib/cli";
import { cliError } from "../lib/pulumi-errors";
import { hasStack, stackFile } from "../lib/stack-file";
import { checkPlaneNames, givenKubeconfigs, KUBECONFIG_OPTIONS } from "../lib/kubeconfig-options";
import type { Connect } from "../status/run";
import type { GivenKubeconfigs } from "../status/targets";
import type { Engine } from "./engine";
import { parseQueueRef, type QueueRef } from "./function-queues";

const USAGE =
    "usage: npm run upgrade -- --stack <name> [--plan] [--from <release>] [--restart] [--dir <program directory>]\n" +
    "                          [--kubeconfig <file>] [--context <name>] [--kubeconfig-for <plane>=<file>]...\n" +
    "                          [--queue <function>[:<version>]]... [--nvcf-api <url>] [--nvcf-api-host <host>]\n" +
    "                          [--timeout <seconds>] [--poll <seconds>]\n";

const HELP =
    USAGE +
    "\nMoves the stack's environment to the bundle release it selects (nvcf-self-managed:bundle.release, else the newest\n" +
    "this program knows) in NVIDIA's runbook stages: preflight, compute planes, NATS drain gate, OpenBao, dependencies (01),\n" +
    "core services (02), observability, receipt, final preview. Each stage is a targeted pulumi up of the stack (the same\n" +
    "stack, backend and secrets as the pulumi CLI) followed by its checks. Progress is kept in the cluster\n" +
    "(ConfigMap nvcf/nvcf-upgrade-progress): run the command again after a failure and it resumes where it stopped.\n" +
    "  --stack <name>                  the stack (required)\n" +
    "  --plan                          print each stage's targeted preview and checks; change nothing\n" +
    "  --from <release>                the bundle release the environment runs, when it has no receipt yet\n" +
    "  --restart                       forget a recorded, unfinished upgrade to another release and start over\n" +
    "  --dir <directory>               the program's directory (default: the current one)\n" +
    "  --kubeconfig, --context, --kubeconfig-for <plane>=<file>\n" +
    "                                  how the checks reach the clusters (default: as pulumi up does; the stack's\n" +
    "                                  kubeconfig secrets are read through Pulumi)\n" +
    "  --queue <function>[:<version>]  a function (version) whose queue must be empty before NATS restarts; needs\n" +
    "                                  NVCF_API_KEY (queue_details scope) in the environment\n" +
    "  --nvcf-api <url>                the NVCF API for --queue (default http://api.<global.domain>); --nvcf-api-host\n" +
    "                                  sends another Host header\n" +
    "  --timeout <seconds>, --poll <seconds>\n" +
    "                                  how long each stage's checks may take and how often they run\n" +
    "                                  (default: checks.healthGate.timeoutSeconds and pollSeconds)\n" +
    "Exit: 0 done (or planned), 1 a stage failed (fix it and run again), 2 usage, a stack file or config the program\n" +
    "rejects, refused (a downgrade, an unknown installed release) or a cluster that cannot be reached.\n";

const OPTIONS = {
    stack: { type: "string" },
    dir: { type: "string" },
    plan: { type: "boolean" },
    from: { type: "string" },
    restart: { type: "boolean" },
    ...KUBECONFIG_OPTIONS,
    queue: { type: "string", multiple: true },
    "nvcf-api": { type: "string" },
    "nvcf-api-host": { type: "string" },
    timeout: { type: "string" },
    poll: { type: "string" },
} as const;

interface Options {
    readonly stack: string;
    readonly root: string;
    readonly plan: boolean;
    readonly restart: boolean;
    readonly from?: string;
    readonly given: GivenKubeconfigs;
    readonly queues: QueueRef[];
    readonly nvcfApi?: string;
    readonly nvcfApiHost?: string;
    readonly timeoutSeconds?: number;
    readonly pollSeconds?: number;
}

function seconds(name: string, value: string | undefined): number | undefined {
    if (value === undefined) return undefined;
    const n = Number(value);
    if (!Number.isInteger(n) || n < 1)
        throw new UsageError(`--${name} takes a whole number of seconds, at least 1; given ${JSON.stringify(value)}`);
    return n;
}

function parse(argv: readonly string[]): Options {
    const values = parseOptions(argv, OPTIONS);
    const stack = required("stack", values.stack);
    const root = path.resolve(values.dir ?? process.cwd());
    if (!hasStack(root, stack)) throw new UsageError(`no stack file ${stackFile(root, stack)}`);
    const queues = list(values.queue).map((q) => {
        const ref = parseQueueRef(q);
        if (!ref) throw new UsageError(`--queue takes <function id>[:<version id>], each a UUID; given ${JSON.stringify(q)}`);
        return ref;
    });
    return {
        stack,
        root,
        plan: values.plan === true,
        restart: values.restart === true,
        ...(values.from !== undefined ? { from: values.from } : {}),
        given: givenKubeconfigs(values),
        queues,
        ...(values["nvcf-api"] !== undefined ? { nvcfApi: values["nvcf-api"] } : {}),
        ...(values["nvcf-api-host"] !== undefined ? { nvcfApiHost: values["nvcf-api-host"] } : {}),
        ...(values.timeout !== undefined ? { timeoutSeconds: seconds("timeout", values.timeout) } : {}),
        ...(values.poll !== undefined ? { pollSeconds: seconds("poll", values.poll) } : {}),
    };
}

export interface UpgradeCliDeps {
    /** How the stack is driven (default: the Automation API on the program's directory). */
    readonly engine?: (root: string, stack: string, project: string) => Promise<Engine>;
    /** How a cluster's access becomes a client (default: its kubeconfig). */
    readonly connect?: Connect;
    readonly sleep?: (ms: number) => Promise<void>;
    /** Aborted on Ctrl-C: the upgrade stops at its next step (the terminal's Ctrl-C reaches a running pulumi update itself). */
    readonly signal?: AbortSignal;
}

/** `npm run upgrade`: parses the command line, reaches the stack and its clusters, then runs (or plans) the stages. */
export async function upgradeCli(
    argv: readonly string[],
    io: Io,
    env: NodeJS.ProcessEnv = process.env,
    deps: UpgradeCliDeps = {},
): Promise<number> {
    const line = readCommandLine(argv, io, env, { script: "upgrade", optionNames: Object.keys(OPTIONS), help: HELP, usage: USAGE, parse });
    if ("exit" in line) return line.exit;
    const options: Options = line.options;
    if (options.queues.length > 0 && !env.NVCF_API_KEY) {
        return reportUsageError(io, "--queue needs an NVCF API key with the queue_details scope in NVCF_API_KEY", USAGE, undefined);
    }
    // Loaded only now: the program's modules take a second or two, and a typo above should fail at once.
    const { stackSettings } = await import("../lib/stack-settings");
    const { projectName } = await import("../lib/stack-config");
    const { statusTargets } = await import("../status/targets");
    const { connectWithKubeconfig } = await import("../status/run");
    const { bundleReleases } = await import("../../components/bundle/bundle-releases");
    const { automationEngine } = await import("./engine");
    const { kubeProgressStore } = await import("./progress");
    const { runUpgrade } = await import("./run");
    const fail = (message: string) => {
        io.err(`upgrade: ${message}\n`);
        return 2;
    };
    let settings;
    let secretKeys;
    try {
        ({ settings, secretKeys } = stackSettings(options.root, options.stack));
    } catch (error) {
        return fail((error as Error).message);
    }
    try {
        checkPlaneNames(
            options.given,
            settings.computePlanes.map((p) => p.clusterName),
        );
    } catch (error) {
        return reportUsageError(io, (error as Error).message, USAGE, undefined);
    }
    const project = projectName(options.root);
    let engine: Engine;
    try {
        engine = await (deps.engine ?? automationEngine)(options.root, options.stack, project);
    } catch (error) {
        return fail(
            `the stack ${options.stack} could not be selected: ${
                cliError(error)
                    .split("\n")
                    .find((l) => l.trim()) ?? ""
            }`,
        );
    }
    // The stack's own kubeconfig secrets, decrypted by Pulumi, reach what status cannot; a file given on the command line wins.
    const given = await withStackKubeconfigs(
        options.given,
        secretKeys,
        engine,
        settings.computePlanes.map((p) => p.clusterName),
    );
    const targets = statusTargets(
        settings,
        secretKeys.filter((k) => k !== "kubeconfig" && k !== "computePlaneKubeconfigs"),
        given,
    );
    const connect = deps.connect ?? connectWithKubeconfig;
    const reached = [];
    for (const t of targets) {
        if (!t.access) return fail(`the ${t.cluster} cannot be reached: ${t.skipped}`);
        try {
            reached.push({ target: t, kube: await connect(t.access) });
        } catch (error) {
            return fail(`the ${t.cluster}'s kubeconfig could not be used: ${(error as Error).message}`);
        }
    }
    const [control, ...planes] = reached;
    const apiKey = env.NVCF_API_KEY;
    try {
        return await runUpgrade(
            {
                stack: options.stack,
                plan: options.plan,
                restart: options.restart,
                ...(options.from ? { from: options.from } : {}),
                queues: options.queues,
                ...(apiKey && options.queues.length > 0
                    ? {
                          queueAccess: {
                              baseUrl: options.nvcfApi ?? `http://api.${settings.controlPlane.global.domain}`,
                              ...(options.nvcfApiHost ? { hostHeader: options.nvcfApiHost } : {}),
                              apiKey,
                          },
                      }
                    : {}),
                timeoutSeconds: options.timeoutSeconds ?? settings.checks.healthGate.timeoutSeconds,
                pollSeconds: options.pollSeconds ?? settings.checks.healthGate.pollSeconds,
            },
            {
                engine,
                settings,
                clusters: { control, planes: planes.map((p, i) => ({ ...p, name: settings.computePlanes[i].clusterName })) },
                progress: kubeProgressStore(control.kube),
                releases: bundleReleases(),
                out: (text) => io.out(text),
                ...(deps.sleep ? { sleep: deps.sleep } : {}),
                ...(deps.signal ? { signal: deps.signal } : {}),
            },
        );
    } catch (error) {
        return fail((error as Error).message);
    }
}

/** The kubeconfigs the stack holds as secrets, where no file was given for that cluster. */
async function withStackKubeconfigs(
    given: GivenKubeconfigs,
    secretKeys: readonly string[],
    engine: Engine,
    planeNames: readonly string[],
): Promise<GivenKubeconfigs> {
    const controlPlane =
        given.controlPlane ??
        (secretKeys.includes("kubeconfig")
            ? await engine.config("kubeconfig").then((text) => (text ? { file: "the stack secret kubeconfig", text } : undefined))
            : undefined);
    const planes = new Map(given.planes);
    if (secretKeys.includes("computePlaneKubeconfigs")) {
        const text = await engine.config("computePlaneKubeconfigs");
        const map = text ? (JSON.parse(text) as Record<string, unknown>) : {};
        for (const name of planeNames) {
            const kc = map[name];
            if (!planes.has(name) && typeof kc === "string")
                planes.set(name, { file: `the stack secret computePlaneKubeconfigs.${name}`, text: kc });
        }
    }
    return { ...given, ...(controlPlane ? { controlPlane } : {}), planes };
}
