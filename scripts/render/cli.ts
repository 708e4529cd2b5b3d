import * as path from "node:path";
import { renderAssumingSecrets, assumedNotice } from "../lib/assume-secrets";
import { Io, list, npmTookOptionsHint, oneOf, parseOptions, reportUsageError, required, UsageError, wantsHelp, writeOut } from "../lib/cli";
import { formatJson } from "./format-json";
import { formatMermaid } from "./format-mermaid";
import { formatValues } from "./format-values";
import type { RenderOptions } from "../lib/render";
import { RenderedStack } from "../lib/rendered";
import { hasStack, stackFile } from "../lib/stack-file";
import { withoutSourceMaps } from "../lib/source-maps";

const USAGE =
    "usage: npm run --silent render -- --stack <name> [--out <file>] [--format json|mermaid|values]\n" +
    "                                  [--dir <program directory>] [--assume-secret <key>]... [--no-assume-secrets]\n";

const HELP =
    USAGE +
    "\nThe stack's desired state, offline: the program under Pulumi's mocks, no cluster, no credentials.\n" +
    "  --stack <name>         the stack file Pulumi.<name>.yaml (required)\n" +
    "  --format <format>      json (default), mermaid (a flowchart) or values (each release's Helm values)\n" +
    "  --out <file>           write there instead of stdout (- is stdout); a regular file is replaced\n" +
    "                         whole or not at all, a device or a FIFO is written as it is\n" +
    "  --dir <directory>      the program's directory (default: the current one)\n" +
    "  --assume-secret <key>  treat this secret key as set even when the program does not require it\n" +
    "  --no-assume-secrets    fail, as `pulumi up` would, when a secret key the program requires is not\n" +
    "                         in the stack file (by default it is assumed set, and stderr says so)\n" +
    "Exit: 0 written, 2 usage, a stack file or config the program rejects (with the message pulumi up prints),\n" +
    "or an I/O error.\n";

const OPTIONS = {
    stack: { type: "string" },
    out: { type: "string" },
    format: { type: "string" },
    dir: { type: "string" },
    "assume-secret": { type: "string", multiple: true },
    "no-assume-secrets": { type: "boolean" },
} as const;

const FORMATS: Record<"json" | "mermaid" | "values", (rendered: RenderedStack) => string> = {
    json: formatJson,
    mermaid: formatMermaid,
    values: formatValues,
};

/**
 * `npm run render`: the stack's desired state, offline. Exit 0 when written (or for --help), 2
 * for a usage error, a stack file that does not parse, a config the program rejects (with the
 * message `pulumi up` prints) or an I/O error. On failure nothing is written. Notices go to
 * stderr: stdout holds the render only.
 * `run` runs the program (RenderOptions.run).
 */
export async function renderCli(
    argv: readonly string[],
    io: Io,
    env: NodeJS.ProcessEnv = process.env,
    run?: RenderOptions["run"],
): Promise<number> {
    if (wantsHelp(argv)) {
        io.out(HELP);
        return 0;
    }
    let stack: string;
    let format: keyof typeof FORMATS;
    let root: string;
    let out: string;
    let assumeSecrets: string[];
    let autoAssume: boolean;
    try {
        const values = parseOptions(argv, OPTIONS);
        stack = required("stack", values.stack);
        format = oneOf("format", values.format, ["json", "mermaid", "values"], "json");
        root = path.resolve(values.dir ?? process.cwd());
        out = values.out ?? "-";
        assumeSecrets = list(values["assume-secret"]);
        autoAssume = values["no-assume-secrets"] !== true;
        if (!hasStack(root, stack)) throw new UsageError(`no stack file ${stackFile(root, stack)}`);
    } catch (error) {
        const hint = npmTookOptionsHint("render", Object.keys(OPTIONS), argv, env);
        return reportUsageError(io, (error as Error).message, USAGE, hint);
    }

    // Loaded only now: the SDK takes seconds to load, and a typo above should fail at once.
    const render: typeof import("../lib/render") = await withoutSourceMaps(() => import("../lib/render"));
    let text: string;
    try {
        const { rendered, assumed } = await renderAssumingSecrets(render, { root, stack, assumeSecrets, run }, autoAssume);
        io.err(assumedNotice("render", assumed));
        text = FORMATS[format](rendered);
    } catch (error) {
        io.err(`${render.programErrorText(error)}\n`);
        // A stack file that does not parse and a config the program rejects are the same to a
        // caller (the stack file is wrong): one exit code, the one status, upgrade and plan-diff use.
        return 2;
    }
    try {
        writeOut(out, text, io);
        return 0;
    } catch (error) {
        io.err(`cannot write ${out}: ${(error as Error).message}\n`);
        return 2;
    }
}
