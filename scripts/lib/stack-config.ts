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
 * decrypted), at the top or under a key set with `--path`, and the list of keys that were
 * secret: a key holding a secret anywhere is a secret as a whole, as Pulumi treats it.
 */
export function stackConfig(stack: string, root: string = REPO_ROOT): { config: StackConfig; secretKeys: string[] } {
    const doc = readStackFile(stackFile(root, stack));
    const config: StackConfig = {};
    const secretKeys: string[] = [];
    for (const [key, value] of Object.entries(doc.config ?? {})) {
        const name = key.split(":")[1] ?? key;
        let secret = false;
        const replace = (v: unknown, at: readonly string[]): unknown => {
            if (isPlainObject(v) && "secure" in v) {
                secret = true;
                return secretPlaceholder([name, ...at].join("."));
            }
            if (Array.isArray(v)) return v.map((item, i) => replace(item, [...at, String(i)]));
            if (isPlainObject(v)) return Object.fromEntries(Object.entries(v).map(([k, item]) => [k, replace(item, [...at, k])]));
            return v;
        };
        config[key] = replace(value, []);
        if (secret) secretKeys.push(key);
    }
    return { config, secretKeys };
}

/**
 * What an offline render puts where a secret is. A kubeconfig's stands for a kubeconfig (the
 * program checks that one is a YAML mapping before it runs): an empty one, naming the key.
 */
export function secretPlaceholder(path: string): string {
    const [top] = path.split(".");
    if (top === "kubeconfig" || top === "computePlaneKubeconfigs") {
        return `# placeholder-for-${path}: an offline render never decrypts it\napiVersion: v1\nkind: Config\nclusters: []\ncontexts: []\nusers: []\n`;
    }
    return `placeholder-for-${path}`;
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

/**
 * The node arguments `root`'s Pulumi.yaml gives the language host (`runtime.options.nodeargs`),
 * split on white space; none when it gives none.
 */
export function projectNodeArgs(root: string): string[] {
    const doc = parseYaml(fs.readFileSync(path.join(root, "Pulumi.yaml"), "utf8")) as { runtime?: { options?: { nodeargs?: unknown } } };
    const nodeargs = doc.runtime?.options?.nodeargs;
    return typeof nodeargs === "string" ? nodeargs.split(/\s+/).filter((a) => a !== "") : [];
}
