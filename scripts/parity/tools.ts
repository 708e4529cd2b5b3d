/**
 * Where the parity test's tools are, and the bundle this program follows: helm and helmfile (as
 * scripts/parity/build-tools.sh leaves them) and a checkout of NVIDIA/nvcf. A module of its own,
 * so the commands (npm run test:parity, npm run chart-reads) and the test share it.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

/** The bundle this program follows: NVIDIA/nvcf tag deploy/stacks/self-managed/v0.8.0-dev.208 (stack VERSION 0.8.0). */
export const PINNED_BUNDLE = {
    tag: "deploy/stacks/self-managed/v0.8.0-dev.208",
    commit: "fadc0f815832fe82b4ddd15932843d3dca6e9463",
    version: "0.8.0",
} as const;

export interface ParityTools {
    readonly helm: string;
    readonly helmfile: string;
    /** A directory holding `deploy/stacks` (and `deploy/helm`) of NVIDIA/nvcf. */
    readonly checkout: string;
    /** The git directory it came from, when NVCF_BUNDLE is one (the charts' release tags are read there). */
    readonly git?: string;
    /** The distribution registry, when built (only the install benchmark needs it). */
    readonly registry?: string;
}

const CACHE = process.env.NVCF_PARITY_CACHE ?? path.join(os.homedir(), ".cache", "nvcf-parity");

/**
 * The tools and the checkout, or what is missing. `NVCF_BUNDLE` is a checkout of NVIDIA/nvcf (a
 * working tree), or a git directory, bare or not, from which `deploy/` is taken at
 * `NVCF_BUNDLE_REF` (default: the pinned commit). The tools come from the environment or from the
 * `env.sh` the build script writes.
 */
export function findParityTools(): { tools?: ParityTools; missing: string } {
    const fromFile: Record<string, string> = {};
    const envFile = path.join(CACHE, "env.sh");
    if (fs.existsSync(envFile)) {
        for (const m of fs.readFileSync(envFile, "utf8").matchAll(/^export (NVCF_PARITY_[A-Z_]+|NVCF_BUNDLE(?:_REF)?)='([^']*)'/gm)) {
            fromFile[m[1]] = m[2];
        }
    }
    const get = (key: string) => process.env[key] || fromFile[key];
    const helm = get("NVCF_PARITY_HELM");
    const helmfile = get("NVCF_PARITY_HELMFILE");
    const bundle = get("NVCF_BUNDLE");
    const missing = [
        ...(!helm || !fs.existsSync(helm) ? ["helm (NVCF_PARITY_HELM)"] : []),
        ...(!helmfile || !fs.existsSync(helmfile) ? ["helmfile (NVCF_PARITY_HELMFILE)"] : []),
        ...(!bundle || !fs.existsSync(bundle) ? ["a checkout of NVIDIA/nvcf (NVCF_BUNDLE)"] : []),
    ];
    if (missing.length > 0) return { missing: `missing ${missing.join(", ")} (looked in the environment and ${envFile})` };
    const checkout = checkoutDir(bundle!, get("NVCF_BUNDLE_REF") ?? PINNED_BUNDLE.commit);
    const git = checkout === bundle ? undefined : bundle;
    const registry = get("NVCF_PARITY_REGISTRY");
    const withRegistry = registry && fs.existsSync(registry) ? { registry } : {};
    return { tools: { helm: helm!, helmfile: helmfile!, checkout, ...(git ? { git } : {}), ...withRegistry }, missing: "" };
}

/** A working tree as it is; a git directory's `deploy/` at `ref`, extracted once per ref under the cache. */
function checkoutDir(bundle: string, ref: string): string {
    if (fs.existsSync(path.join(bundle, "deploy", "stacks", "self-managed"))) return bundle;
    const dir = path.join(CACHE, "bundle", ref);
    if (!fs.existsSync(path.join(dir, "deploy", "stacks", "self-managed"))) {
        fs.mkdirSync(dir, { recursive: true });
        const archive = execFileSync("git", ["--git-dir", bundle, "archive", ref, "deploy/stacks", "deploy/helm"], {
            maxBuffer: 1 << 30,
            stdio: ["ignore", "pipe", "pipe"],
        });
        execFileSync("tar", ["-x", "-C", dir], { input: archive });
    }
    return dir;
}
