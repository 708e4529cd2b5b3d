/**
 * Stack config as the mock engine feeds it to the program: read from a stack file (secrets as
 * placeholders, never decrypted), merged with overrides, and the project name it is keyed by.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { LineCounter, parse as parseYaml, parseDocument } from "yaml";
import { isPlainObject } from "./rendered";
import { REPO_ROOT } from "./repo";
import { stackFile } from "./stack-file";

/** Config by full key (`<project>:<key>`); structured values stay objects. */
export type StackConfig = Record<string, unknown>;

/**
 * A stack file's config, with every `secure:` value replaced by a placeholder (never
 * decrypted), and the list of keys that were secret.
 */
export function stackConfig(stack: string, root: string = REPO_ROOT): { config: StackConfig; secretKeys: string[] } {
    const doc = readStackFile(stackFile(root, stack));
    const config: StackConfig = {};
    const secretKeys: string[] = [];
    for (const [key, value] of Object.entries(doc.config ?? {})) {
        if (value && typeof value === "object" && "secure" in value) {
            config[key] = `placeholder-for-${key.split(":")[1]}`;
            secretKeys.push(key);
        } else {
            config[key] = value;
        }
    }
    return { config, secretKeys };
}

/** A stack file this tool cannot read: its name, and the line where YAML stopped. */
export class StackFileError extends Error {
    override readonly name = "StackFileError";
}

/** The stack file's document; a YAML error or a file without a `config:` map names the file and line. */
function readStackFile(file: string): { config?: StackConfig } {
    const name = path.basename(file);
    const lineCounter = new LineCounter();
    const doc = parseDocument(fs.readFileSync(file, "utf8"), { prettyErrors: false, lineCounter });
    const [error] = doc.errors;
    if (error) {
        const at = lineCounter.linePos(error.pos[0]);
        const where = ` (line ${at.line}, column ${at.col})`;
        throw new StackFileError(`${name}: not valid YAML: ${error.message.split("\n")[0]}${where}`);
    }
    const value: unknown = doc.toJS();
    if (value === null || value === undefined) {
        throw new StackFileError(`${name} is empty: a stack file holds a \`config:\` map (start from Pulumi.dev.yaml)`);
    }
    if (!isPlainObject(value) || (value.config !== undefined && value.config !== null && !isPlainObject(value.config))) {
        throw new StackFileError(`${name}: expected a \`config:\` map of settings at line 1 (start from Pulumi.dev.yaml)`);
    }
    return value as { config?: StackConfig };
}

/** Deep-merges `over` into `base` (objects merge, everything else replaces); `undefined` deletes. */
export function withConfig(base: StackConfig, over: StackConfig): StackConfig {
    const out: StackConfig = { ...base };
    for (const [k, v] of Object.entries(over)) {
        if (v === undefined) delete out[k];
        else out[k] = isPlainObject(v) && isPlainObject(out[k]) ? withConfig(out[k] as StackConfig, v as StackConfig) : v;
    }
    return out;
}

/** The project name in `root`'s Pulumi.yaml (a revision may have renamed it). */
export function projectName(root: string = REPO_ROOT): string {
    const doc = parseYaml(fs.readFileSync(path.join(root, "Pulumi.yaml"), "utf8")) as { name?: unknown };
    if (typeof doc.name !== "string") throw new Error(`${path.join(root, "Pulumi.yaml")} has no project name`);
    return doc.name;
}
