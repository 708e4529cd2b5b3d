import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { KubeAccess } from "../../lib/cluster-access/access";
import type { HelmAction } from "./plan";

/**
 * Helm's own rollback and uninstall, with the `helm` CLI a platform engineer already has (the
 * Helmfile bundle this stack replaces needs it too): they run the chart's rollback and delete
 * hooks and apply the previous manifest exactly as `helm` does, which no hand-written record
 * could. Only when a release needs one; without `helm` on PATH recovery stops, changing nothing,
 * and prints the commands.
 */
export interface HelmCli {
    /** `helm version --short`, or undefined when there is no helm to run. */
    version(): Promise<string | undefined>;
    run(action: HelmAction, access: KubeAccess, timeoutSeconds: number): Promise<void>;
}

/** The command line of an action (without the cluster's flags), as messages show it. */
export function helmArgs(action: HelmAction, timeoutSeconds: number): string[] {
    const common = ["--namespace", action.namespace, "--timeout", `${timeoutSeconds}s`];
    return action.kind === "rollback"
        ? ["rollback", action.name, String(action.revision), ...common]
        : ["uninstall", action.name, ...common];
}

function exec(bin: string, args: readonly string[], env: NodeJS.ProcessEnv): Promise<{ code: number; out: string }> {
    return new Promise((resolve, reject) => {
        const child = spawn(bin, [...args], { env, stdio: ["ignore", "pipe", "pipe"] });
        let out = "";
        child.stdout.on("data", (c: Buffer) => (out += c.toString("utf8")));
        child.stderr.on("data", (c: Buffer) => (out += c.toString("utf8")));
        child.on("error", reject);
        child.on("close", (code) => resolve({ code: code ?? 1, out }));
    });
}

export function helmOnPath(bin = process.env.HELM_BIN ?? "helm", env: NodeJS.ProcessEnv = process.env): HelmCli {
    return {
        async version() {
            try {
                const res = await exec(bin, ["version", "--short"], env);
                return res.code === 0 ? res.out.trim() : undefined;
            } catch {
                return undefined;
            }
        },
        async run(action, access, timeoutSeconds) {
            // The provider's kubeconfig is a stack secret: it goes to helm in a file only this user can read, removed at once.
            const dir = fs.mkdtempSync(path.join(os.tmpdir(), "nvcf-recover-"));
            try {
                const flags: string[] = [];
                if (access.kubeconfig !== undefined) {
                    const file = path.join(dir, "kubeconfig");
                    fs.writeFileSync(file, access.kubeconfig, { mode: 0o600 });
                    flags.push("--kubeconfig", file);
                }
                if (access.context) flags.push("--kube-context", access.context);
                const res = await exec(bin, [...helmArgs(action, timeoutSeconds), ...flags], env);
                if (res.code !== 0) throw new Error(`helm ${action.kind} ${action.name} failed: ${res.out.trim().slice(-2000)}`);
            } finally {
                fs.rmSync(dir, { recursive: true, force: true });
            }
        },
    };
}
