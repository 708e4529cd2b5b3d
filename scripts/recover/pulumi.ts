import { spawn } from "node:child_process";
import type { ExportedState } from "./state";

/**
 * The stack, through Pulumi's Automation API: the same CLI, backend, login and environment
 * variables (PULUMI_BACKEND_URL, PULUMI_CONFIG_PASSPHRASE, PULUMI_HOME, ...) as `pulumi` in this
 * directory, never interactive. An interface, so the unit tests give a stack in memory.
 */
export interface PulumiProject {
    /** The backend's URL, from `pulumi whoami`. */
    readonly backendUrl: string;
    /** The project's name, from Pulumi.yaml. */
    readonly project: string;
    /** The stack, once its state can be read. */
    select(stack: string): Promise<PulumiStack>;
}

export interface PulumiStack {
    /** The checkpoint with its secrets in plain text; it stays in this process's memory. */
    export(): Promise<ExportedState>;
    /** Replaces the checkpoint (the CLI checks it, encrypts its secrets, and takes the stack's lock). */
    import(state: ExportedState): Promise<void>;
    /** Reads these resources again with their providers (`pulumi refresh --target`). */
    refresh(urns: readonly string[], onOutput: (text: string) => void): Promise<void>;
    /** `pulumi cancel`: removes a DIY backend's locks, ends Pulumi Cloud's update in progress. */
    cancel(): Promise<void>;
}

export async function automationProject(workDir: string): Promise<PulumiProject> {
    const { LocalWorkspace, Stack } = await import("@pulumi/pulumi/automation");
    const ws = await LocalWorkspace.create({ workDir });
    const [who, settings] = await Promise.all([ws.whoAmI(), ws.projectSettings()]);
    return {
        backendUrl: who.url ?? "",
        project: settings.name,
        async select(name) {
            const stack = await Stack.select(name, ws);
            return {
                export: () => stack.exportStack() as Promise<ExportedState>,
                // Through stdin: the Automation API's own importStack writes the plain-text secrets to a temporary file.
                import: (state) => importThroughStdin(ws.pulumiCommand.command, workDir, name, { ...process.env, ...ws.envVars }, state),
                async refresh(urns, onOutput) {
                    await stack.refresh({ target: [...urns], color: "never", onOutput });
                },
                cancel: () => stack.cancel(),
            };
        },
    };
}

function importThroughStdin(cli: string, cwd: string, stack: string, env: NodeJS.ProcessEnv, state: ExportedState): Promise<void> {
    return new Promise((resolve, reject) => {
        const child = spawn(cli, ["stack", "import", "--stack", stack, "--non-interactive"], { cwd, env, stdio: ["pipe", "pipe", "pipe"] });
        let stderr = "";
        child.stdout.resume();
        child.stderr.on("data", (c: Buffer) => (stderr += c.toString("utf8")));
        child.on("error", reject);
        child.on("close", (code) => {
            if (code === 0) resolve();
            else reject(Object.assign(new Error(`pulumi stack import exited ${code}`), { commandResult: { stderr } }));
        });
        child.stdin.end(JSON.stringify(state));
    });
}
