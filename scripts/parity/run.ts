/**
 * `npm run test:parity`: the program's values against NVIDIA's bundle run by the real Helmfile
 * (test/parity/). It needs helm and helmfile (scripts/parity/build-tools.sh) and a checkout of
 * NVIDIA/nvcf (NVCF_BUNDLE). Without them it fails, naming what is missing, unless
 * NVCF_PARITY_SKIP_MISSING=1 asks for a skip (printed as one). `--check` only answers whether
 * they are there (exit 0) or not (exit 1), for .ci/run.
 */
import { spawnSync } from "node:child_process";
import * as path from "node:path";
import { findParityTools } from "./tools";
import { TSX_NODE_ARGS } from "../lib/repo";
import { wantsHelp } from "../lib/cli";

const HOW =
    "build the tools once with scripts/parity/build-tools.sh (about 30 min cold) and set NVCF_BUNDLE to a checkout or git directory of NVIDIA/nvcf; see docs/testing.md";

const HELP = `usage: npm run test:parity [-- --check]

Runs the parity test (test/parity/): NVIDIA's bundle rendered by the real Helmfile against the
program's values, for the same environments. Needs helm and helmfile (scripts/parity/build-tools.sh)
and a checkout or git directory of NVIDIA/nvcf in NVCF_BUNDLE (NVCF_BUNDLE_REF: another commit).
  --check                    exit 0 when the tools and the checkout are there, else 1
Environment: NVCF_PARITY_SKIP_MISSING=1 skips (exit 0) instead of failing without them.
Exit: 0 passed (or skipped as asked), 1 a test failed or something is missing.
`;

function main(argv: readonly string[]): number {
    if (wantsHelp(argv)) {
        process.stdout.write(HELP);
        return 0;
    }
    const { tools, missing } = findParityTools();
    if (argv.includes("--check")) {
        if (!tools) console.error(`parity test: ${missing}`);
        return tools ? 0 : 1;
    }
    if (!tools) {
        if (process.env.NVCF_PARITY_SKIP_MISSING === "1") {
            console.log(`parity test: skipped, as NVCF_PARITY_SKIP_MISSING=1 asks: ${missing}; ${HOW}`);
            return 0;
        }
        console.error(`parity test: cannot run: ${missing}; ${HOW} (or set NVCF_PARITY_SKIP_MISSING=1 to skip).`);
        return 1;
    }
    const root = path.resolve(__dirname, "..", "..");
    const res = spawnSync(
        process.execPath,
        [...TSX_NODE_ARGS, "--experimental-test-isolation=none", "--test", "--test-reporter=spec", "test/parity/*.test.ts"],
        { cwd: root, stdio: "inherit", env: { ...process.env, NVCF_PARITY: "1" } },
    );
    if (res.error) throw res.error;
    return res.status ?? 1;
}

process.exitCode = main(process.argv.slice(2));
