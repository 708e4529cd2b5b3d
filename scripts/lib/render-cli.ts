import * as path from "node:path";
import { Io, list, oneOf, parseOptions, required, UsageError, writeAtomically } from "./cli";
import { formatJson } from "./format-json";
import { formatMermaid } from "./format-mermaid";
import { formatValues } from "./format-values";
import { RenderedStack } from "./rendered";
import { hasStack, stackFile } from "./stack-file";

const USAGE =
    "usage: npm run --silent render -- --stack <name> [--out <file>] [--format json|mermaid|values]\n" +
    "                                  [--dir <program directory>] [--assume-secret <key>]...\n";

const FORMATS: Record<"json" | "mermaid" | "values", (rendered: RenderedStack) => string> = {
    json: formatJson,
    mermaid: formatMermaid,
    values: formatValues,
};

/**
 * `npm run render`: the stack's desired state, offline. Exit 0 when written, 1 when the
 * program rejects the config (with the message `pulumi up` prints), 2 for a usage or I/O error.
 * On failure nothing is written.
 */
export async function renderCli(argv: readonly string[], io: Io): Promise<number> {
    let stack: string;
    let format: keyof typeof FORMATS;
    let root: string;
    let out: string | undefined;
    let assumeSecrets: string[];
    try {
        const values = parseOptions(argv, {
            stack: { type: "string" },
            out: { type: "string" },
            format: { type: "string" },
            dir: { type: "string" },
            "assume-secret": { type: "string", multiple: true },
        });
        stack = required("stack", values.stack);
        format = oneOf("format", values.format, ["json", "mermaid", "values"], "json");
        root = path.resolve(values.dir ?? process.cwd());
        out = values.out;
        assumeSecrets = list(values["assume-secret"]);
        if (!hasStack(root, stack)) throw new UsageError(`no stack file ${stackFile(root, stack)}`);
    } catch (error) {
        io.err(`${(error as Error).message}\n${USAGE}`);
        return 2;
    }

    // Loaded only now: the SDK takes seconds to load, and a typo above should fail at once.
    const { programErrorText, renderStack }: typeof import("./render") = await import("./render");
    let text: string;
    try {
        text = FORMATS[format](await renderStack({ root, stack, assumeSecrets }));
    } catch (error) {
        io.err(`${programErrorText(error)}\n`);
        return 1;
    }
    if (out === undefined) {
        io.out(text);
        return 0;
    }
    try {
        writeAtomically(out, text);
        return 0;
    } catch (error) {
        io.err(`cannot write ${out}: ${(error as Error).message}\n`);
        return 2;
    }
}
