import * as fs from "node:fs";
import * as path from "node:path";
import { Io, npmTookOptionsHint, parseOptions, reportUsageError, required, UsageError, wantsHelp } from "../lib/cli";
import type { RecoverDeps } from "./run";

const USAGE = "usage: npm run --silent recover -- --stack <name> [--dir <program directory>] [--force] [--dry-run] [--yes]\n";

const HELP =
    USAGE +
    "\nBrings a stack back after a `pulumi up` or `pulumi destroy` that was killed, so the next run starts\n" +
    "from a consistent state: repairs the local backend's torn files, removes locks no running command\n" +
    "holds, and resolves each pending operation against the cluster (records what Helm finished, rolls\n" +
    "back or uninstalls what it left pending, never uninstalling a release that keeps data). A release\n" +
    "that needs you is left as it is while everything else is resolved; an operation that must stay in\n" +
    "the state (it waits for --yes, helm or a cluster) stops it before it writes the state. It prints what\n" +
    "it found and will do, then what it did. Same backend, login and environment variables as `pulumi`.\n" +
    "  --stack <name>     the stack (required)\n" +
    "  --dir <directory>  the program's directory (default: the current one)\n" +
    "  --force            also remove a lock this command cannot prove stale (another host, a live process)\n" +
    "  --dry-run          print what it found and would do, change nothing\n" +
    "  --yes              also uninstall a release that keeps data when its first install never finished\n" +
    "                     and none of its volumes is bound (the report asks for it; its generated\n" +
    "                     secrets will be new)\n" +
    "Exit: 0 the stack is consistent (or, with --dry-run, nothing stops it), 1 it left some operations\n" +
    "with the steps for you, 2 usage or the stack could not be opened.\n";

const OPTIONS = {
    stack: { type: "string" },
    dir: { type: "string" },
    force: { type: "boolean" },
    "dry-run": { type: "boolean" },
    yes: { type: "boolean" },
} as const;

export async function recoverCli(
    argv: readonly string[],
    io: Io,
    env: NodeJS.ProcessEnv = process.env,
    deps?: Partial<RecoverDeps>,
): Promise<number> {
    if (wantsHelp(argv)) {
        io.out(HELP);
        return 0;
    }
    let stack: string;
    let dir: string;
    let values;
    try {
        values = parseOptions(argv, OPTIONS);
        stack = required("stack", values.stack);
        dir = path.resolve(values.dir ?? process.cwd());
        if (!fs.existsSync(path.join(dir, "Pulumi.yaml"))) throw new UsageError(`no Pulumi.yaml in ${dir}`);
    } catch (error) {
        const hint = npmTookOptionsHint("recover", Object.keys(OPTIONS), argv, env);
        return reportUsageError(io, (error as Error).message, USAGE, hint);
    }
    // Loaded only now: the Automation API and the program's modules take a moment.
    const { recover } = await import("./run");
    const { automationProject } = await import("./pulumi");
    const { connectWithKubeconfig } = await import("./cluster");
    const { helmOnPath } = await import("./helm");
    const { localProcesses } = await import("./locks");
    const { CATALOG } = await import("../../components/catalog/control-plane");
    return recover(
        { stack, dir, force: values.force === true, dryRun: values["dry-run"] === true, yes: values.yes === true },
        {
            project: automationProject,
            connect: connectWithKubeconfig,
            helm: helmOnPath(),
            processes: localProcesses(),
            dataReleases: new Set(CATALOG.filter((e) => e.holdsData).map((e) => e.name)),
            now: () => new Date(),
            ...deps,
        },
        io,
    );
}
