import { fork } from "node:child_process";
import * as path from "node:path";
import { TSX_NODE_ARGS } from "../lib/repo";
import { projectNodeArgs } from "../lib/stack-config";
import { hasStack } from "../lib/stack-file";
import type { SideAnswer, SideRequest } from "./side-protocol";

/**
 * Renders one side in a process whose working directory is `request.root`, started with that
 * side's Pulumi.yaml node arguments (tsx's among them: the child is TypeScript). The program's
 * console output goes to stderr: stdout is the diff. Rejects with the program's message, or
 * when `signal` aborts (the child is killed).
 */
export function renderSideApart(request: SideRequest, signal?: AbortSignal): Promise<Exclude<SideAnswer, { error: string }>> {
    // No stack file on this side: nothing to run a program for.
    if (!hasStack(request.root, request.stack)) return Promise.resolve({ rendered: null, assumed: [] });
    const nodeArgs = projectNodeArgs(request.root);
    if (!` ${nodeArgs.join(" ")} `.includes(` ${TSX_NODE_ARGS.join(" ")} `)) nodeArgs.push(...TSX_NODE_ARGS);
    return new Promise((resolve, reject) => {
        const child = fork(path.join(__dirname, "side-child.ts"), [], {
            cwd: request.root,
            execArgv: nodeArgs,
            serialization: "advanced",
            ...(signal ? { signal } : {}),
            stdio: ["ignore", process.stderr, process.stderr, "ipc"],
        });
        let answered: SideAnswer | undefined;
        child.once("message", (answer: SideAnswer) => (answered = answer));
        child.once("error", reject);
        child.once("exit", (code, signal) => {
            if (answered === undefined)
                reject(new Error(`the render of ${request.root} ended (${signal ?? `exit ${code}`}) without an answer`));
            else if ("error" in answered) reject(new Error(answered.error));
            else resolve(answered);
        });
        child.send(request);
    });
}
