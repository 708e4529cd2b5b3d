import * as fs from "node:fs";
import * as path from "node:path";

/** Stack names become file names: no path separators, no `..` tricks. */
const STACK_NAME = /^[A-Za-z0-9_.-]+$/;

export function stackFile(root: string, stack: string): string {
    if (!STACK_NAME.test(stack) || stack.startsWith(".")) throw new Error(`invalid stack name ${JSON.stringify(stack)}`);
    return path.join(root, `Pulumi.${stack}.yaml`);
}

export function hasStack(root: string, stack: string): boolean {
    return fs.existsSync(stackFile(root, stack));
}
