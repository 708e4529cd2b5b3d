import { spawn, type ChildProcess } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { stringify as toYaml } from "yaml";
import { sampleTree, type TreeUsage } from "./process-tree";

/** What a user's checkout holds that `pulumi` reads; tests, git and installs stay out of the copy. */
const LEFT_OUT = new Set([".git", "node_modules", "test", "bin", ".pulumi", ".pulumi-state"]);

/**
 * A copy of the repository as a user's checkout, with the installed dependencies linked in (the
 * program's and the policy pack's), so stack files and state written by the suite never touch
 * the repository.
 */
export function copyProject(repo: string, dest: string): void {
    fs.cpSync(repo, dest, {
        recursive: true,
        filter: (src) => {
            const rel = path.relative(repo, src);
            if (rel === "") return true;
            const parts = rel.split(path.sep);
            return (
                !(parts.length === 1 && LEFT_OUT.has(parts[0])) &&
                !parts.includes("node_modules") &&
                !/^Pulumi\.(?!yaml$).*\.yaml$/.test(rel)
            );
        },
    });
    fs.symlinkSync(path.join(repo, "node_modules"), path.join(dest, "node_modules"));
    // The policy pack is an npm workspace: its dependencies are hoisted into the root's
    // node_modules, and it has its own only for a version the root cannot share.
    const packModules = path.join(repo, "policies", "node_modules");
    if (fs.existsSync(packModules)) fs.symlinkSync(packModules, path.join(dest, "policies", "node_modules"));
}

export interface CliResult {
    readonly code: number;
    readonly stdout: string;
    readonly stderr: string;
}

/** An engine event from `--event-log`, with the time the suite read it. */
export type TimedEvent = { readonly event: Record<string, any>; readonly at: number };

/** The `pulumi` CLI run in a project directory, as a user runs it (non-interactive, no colour). */
export class PulumiCli {
    readonly log: string[] = [];

    constructor(
        private readonly bin: string,
        private readonly cwd: string,
        /** The user's environment: the tools on PATH, the cluster's kubeconfig, the file backend. */
        readonly env: NodeJS.ProcessEnv,
    ) {}

    /** Runs `pulumi <args>`; throws with the output unless it exits 0 (or `allowFailure`). */
    async run(
        args: string[],
        opts: { allowFailure?: boolean; onEvent?: (e: TimedEvent) => void; timeoutMs?: number; measure?: (u: TreeUsage) => void } = {},
    ): Promise<CliResult> {
        const result = await this.start(args, opts).done;
        if (result.code !== 0 && !opts.allowFailure) {
            throw new Error(
                `pulumi ${args.join(" ")} exited ${result.code}:\n${result.stdout.slice(-4000)}\n${result.stderr.slice(-4000)}`,
            );
        }
        return result;
    }

    /** Starts `pulumi <args>`: the process (to signal it), and its result once it ends, whatever the exit. */
    start(
        args: string[],
        opts: { onEvent?: (e: TimedEvent) => void; timeoutMs?: number; measure?: (u: TreeUsage) => void } = {},
    ): { child: ChildProcess; done: Promise<CliResult> } {
        const full = [...args, "--non-interactive", "--color", "never"];
        let eventLog: string | undefined;
        if (opts.onEvent) {
            eventLog = path.join(this.cwd, `.events-${Date.now()}.jsonl`);
            full.push("--event-log", eventLog);
        }
        // The CLI offers --event-log (what the Automation API reads) only with debug commands on.
        const env = eventLog ? { ...this.env, PULUMI_DEBUG_COMMANDS: "true" } : this.env;
        const child = spawn(this.bin, full, { cwd: this.cwd, env, stdio: ["ignore", "pipe", "pipe"] });
        const sampler = opts.measure && child.pid !== undefined ? sampleTree(child.pid) : undefined;
        const out: Buffer[] = [];
        const err: Buffer[] = [];
        child.stdout.on("data", (c: Buffer) => out.push(c));
        child.stderr.on("data", (c: Buffer) => err.push(c));
        // The engine appends one JSON event per line; read them as they come, for their timing.
        let offset = 0;
        let partial = "";
        const drain = () => {
            if (!eventLog || !opts.onEvent || !fs.existsSync(eventLog)) return;
            const size = fs.statSync(eventLog).size;
            if (size <= offset) return;
            const fd = fs.openSync(eventLog, "r");
            const buf = Buffer.alloc(size - offset);
            fs.readSync(fd, buf, 0, buf.length, offset);
            fs.closeSync(fd);
            offset = size;
            const lines = (partial + buf.toString("utf8")).split("\n");
            partial = lines.pop() ?? "";
            const at = Date.now();
            for (const line of lines) if (line.trim()) opts.onEvent({ event: JSON.parse(line) as Record<string, any>, at });
        };
        const poll = setInterval(drain, 50);
        const timer = setTimeout(() => child.kill("SIGINT"), opts.timeoutMs ?? 14 * 60_000);
        const done = new Promise<number>((resolve) => child.on("close", (c) => resolve(c ?? 1))).then((code) => {
            clearInterval(poll);
            clearTimeout(timer);
            if (sampler) opts.measure?.(sampler.stop());
            drain();
            if (eventLog) fs.rmSync(eventLog, { force: true });
            const result = { code, stdout: Buffer.concat(out).toString("utf8"), stderr: Buffer.concat(err).toString("utf8") };
            this.log.push(`$ pulumi ${args.join(" ")}\n${result.stdout}${result.stderr}(exit ${code})`);
            return result;
        });
        return { child, done };
    }

    /** Runs a command with `--json` and parses its standard output. */
    async json<T = any>(args: string[]): Promise<T> {
        return JSON.parse((await this.run([...args, "--json"])).stdout) as T;
    }
}

/** A user's checkout set up for a suite: where it is, its state, the environment, and the CLI in it. */
export interface UserCheckout {
    readonly project: string;
    readonly state: string;
    readonly env: NodeJS.ProcessEnv;
    readonly cli: PulumiCli;
}

/**
 * The README's set-up in `work`: a copy of the repository (`npm ci`'s node_modules linked in);
 * the CLI, the language host, the kubernetes provider and pulumi-resource-pulumi-nodejs (the
 * dynamic-provider host, shipped in @pulumi/pulumi) on PATH, so nothing is downloaded; the cluster's
 * kubeconfig as $KUBECONFIG, so nothing falls back to the machine's own; temporary files (the
 * kubernetes provider leaves one kubeconfig per Helm call) under `<work>/tmp`; a file backend, logged in;
 * the stack file written and the stack initialised with the passphrase provider, each secret set
 * with `pulumi config set --secret`.
 */
export async function userCheckout(options: {
    repo: string;
    work: string;
    tools: { pulumi: string; bin: string };
    kubeconfig: string;
    stack: string;
    config: Record<string, unknown>;
    secrets: Record<string, string>;
}): Promise<UserCheckout> {
    const { repo, work, tools } = options;
    const project = path.join(work, "project");
    copyProject(repo, project);
    const pluginDir = path.join(work, "bin");
    fs.mkdirSync(pluginDir);
    fs.symlinkSync(
        path.join(repo, "node_modules/@pulumi/pulumi/pulumi-resource-pulumi-nodejs"),
        path.join(pluginDir, "pulumi-resource-pulumi-nodejs"),
    );
    const kubeconfigFile = path.join(work, "kubeconfig");
    fs.writeFileSync(kubeconfigFile, options.kubeconfig, { mode: 0o600 });
    const state = path.join(work, "state");
    fs.mkdirSync(state);
    fs.mkdirSync(path.join(work, "tmp"));
    const env = {
        ...process.env,
        PATH: [pluginDir, tools.bin, path.dirname(process.execPath), process.env.PATH].join(path.delimiter),
        PULUMI_HOME: path.join(work, "pulumi-home"),
        PULUMI_CONFIG_PASSPHRASE: "e2e-passphrase",
        PULUMI_SKIP_UPDATE_CHECK: "true",
        PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
        KUBECONFIG: kubeconfigFile,
        TMPDIR: path.join(work, "tmp"),
    };
    const cli = new PulumiCli(tools.pulumi, project, env);
    await cli.run(["login", `file://${state}`]);
    fs.writeFileSync(path.join(project, `Pulumi.${options.stack}.yaml`), toYaml({ config: options.config }));
    await cli.run(["stack", "init", options.stack, "--secrets-provider", "passphrase"]);
    for (const [key, value] of Object.entries(options.secrets)) await cli.run(["config", "set", "--secret", key, value]);
    return { project, state, env, cli };
}

/** What the CLI says when another run holds the stack's lock (pkg/backend/diy/lock.go), one lock held. */
export const LOCKED_BY_ONE =
    /error: the stack is currently locked by 1 lock\(s\)\. Either wait for the other process\(es\) to end or delete the lock file with `pulumi cancel`\./;
