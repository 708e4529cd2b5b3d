/**
 * Stack config as the mock engine feeds it to the program: read from a stack file (secrets as
 * placeholders, never decrypted), merged with overrides, and the project name it is keyed by.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { parse as parseYaml } from "yaml";
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
    const doc = parseYaml(fs.readFileSync(stackFile(root, stack), "utf8")) as { config?: StackConfig };
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
