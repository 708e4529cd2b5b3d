import * as fs from "node:fs";
import { list, UsageError } from "./cli";

/** Kubeconfig files from the command line: `--kubeconfig` (control plane) and `--kubeconfig-for <plane>=<file>`. */
export interface GivenKubeconfigs {
    readonly controlPlane?: { readonly file: string; readonly text: string };
    readonly context?: string;
    readonly planes: ReadonlyMap<string, { readonly file: string; readonly text: string }>;
}

/** The options that say how a command reaches the stack's clusters (`npm run status`, `npm run upgrade`). */
export const KUBECONFIG_OPTIONS = {
    kubeconfig: { type: "string" },
    context: { type: "string" },
    "kubeconfig-for": { type: "string", multiple: true },
} as const;

function readKubeconfig(file: string): string {
    try {
        return fs.readFileSync(file, "utf8");
    } catch (error) {
        throw new UsageError(`cannot read the kubeconfig ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    }
}

/** `--kubeconfig`, `--context` and each `--kubeconfig-for <plane>=<file>`, the files read; a bad one is a UsageError. */
export function givenKubeconfigs(values: { kubeconfig?: string; context?: string; "kubeconfig-for"?: string[] }): GivenKubeconfigs {
    const planes = new Map<string, { file: string; text: string }>();
    for (const entry of list(values["kubeconfig-for"])) {
        const at = entry.indexOf("=");
        if (at < 1 || at === entry.length - 1)
            throw new UsageError(`--kubeconfig-for takes <plane>=<file>; given ${JSON.stringify(entry)}`);
        const file = entry.slice(at + 1);
        planes.set(entry.slice(0, at), { file, text: readKubeconfig(file) });
    }
    return {
        ...(values.kubeconfig !== undefined ? { controlPlane: { file: values.kubeconfig, text: readKubeconfig(values.kubeconfig) } } : {}),
        ...(values.context !== undefined ? { context: values.context } : {}),
        planes,
    };
}

/** A `--kubeconfig-for` that names no compute plane of the stack, as a UsageError. */
export function checkPlaneNames(given: GivenKubeconfigs, planeNames: readonly string[]): void {
    for (const plane of given.planes.keys()) {
        if (!planeNames.includes(plane)) {
            throw new UsageError(
                `--kubeconfig-for names ${plane}, which is no compute plane of the stack (its planes: ${planeNames.join(", ") || "none"})`,
            );
        }
    }
}
