/**
 * `npm run test:e2e`: the end-to-end suite, refused loudly when its tools are missing. A run
 * of zero tests that exits 0 reads as a pass; so without the tools this fails, naming what is
 * missing and how to build it, unless NVCF_E2E_SKIP_MISSING=1 asks for a skip (printed as one).
 * `--check` answers, for .ci/run, whether the suite is to run here (exit 0): when any of its tools
 * is (the tools were built on this machine, so a missing one fails the run, naming it), not when
 * none is (exit 1).
 */
import { e2eFiles, fileTimes, runE2eFiles } from "./files";
import { findTools } from "./tools";
import { wantsHelp } from "../lib/cli";

const HELP = `usage: npm run test:e2e [-- --check]

Runs the end-to-end suite (test/e2e/*.test.ts, one file at a time, each file's wall time printed
at the end) against the real Pulumi CLI, kubernetes provider, kube-apiserver, etcd,
kube-controller-manager, OpenBao, NATS and Cassandra that scripts/e2e/build-tools.sh builds into
~/.cache/nvcf-e2e (the latest times per file: docs/testing.md).
  --check                    exit 0 when the suite is to run here (any tool built), else 1
Environment: NVCF_E2E_SKIP_MISSING=1 skips (exit 0) instead of failing when no tool is built;
E2E_KUBECONFIG=<file> runs the files that can run against that cluster; E2E_KEEP=1 keeps state
and logs; E2E_LOG=<file> writes the CLI transcript; NVCF_E2E_CACHE moves the tools' cache.
Exit: 0 passed (or skipped as asked), 1 a test failed or a tool is missing.
`;

const BUILD = "build them once per machine with scripts/e2e/build-tools.sh (about 70 min cold), see docs/testing.md, End-to-end suite";

function main(argv: readonly string[]): number {
    if (wantsHelp(argv)) {
        process.stdout.write(HELP);
        return 0;
    }
    const { tools, missing, present } = findTools();
    if (argv.includes("--check")) {
        if (!tools) console.error(`end-to-end tools: ${missing}${present ? "; the suite runs and fails naming them" : ""}`);
        return present ? 0 : 1;
    }
    if (!tools) {
        if (process.env.NVCF_E2E_SKIP_MISSING === "1") {
            console.log(`end-to-end suite: skipped, as NVCF_E2E_SKIP_MISSING=1 asks: ${missing}; ${BUILD}`);
            return 0;
        }
        console.error(`end-to-end suite: cannot run: ${missing}; ${BUILD} (or set NVCF_E2E_SKIP_MISSING=1 to skip).`);
        return 1;
    }
    const runs = runE2eFiles(e2eFiles(), {});
    process.stdout.write(`end-to-end files (wall):\n${fileTimes(runs)}`);
    return runs.every((r) => r.passed) ? 0 : 1;
}

process.exitCode = main(process.argv.slice(2));
