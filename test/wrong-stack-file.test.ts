/**
 * A wrong stack file, either kind: text that is not YAML, and YAML whose config the program's
 * schema rejects. Every command that reads the stack file says what is wrong and exits 2 for
 * both, so a script calling them tells "fix the stack file" apart from their other outcomes with
 * one code. In-process: each command's cli function, on a program directory of its own.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, before, describe, test } from "node:test";
import { stringify } from "yaml";
import type { Io } from "../scripts/lib/cli";
import { renderCli } from "../scripts/render/cli";
import { statusCli } from "../scripts/status/cli";
import { upgradeCli } from "../scripts/upgrade/cli";
import { capture } from "./support/capture";
import { devConfig, PROJECT } from "../scripts/lib/dev-stack";
import { withConfig } from "../scripts/lib/stack-config";

const ROOT = path.resolve(__dirname, "..");

/** The two kinds, each a stack file and what its report must say. */
const KINDS = {
    "not YAML": {
        stack: "notyaml",
        text: () => "config:\n  nvcf-self-managed:controlPlane:\n    global: {domain: x\n",
        says: /Pulumi\.notyaml\.yaml: not valid YAML: .*\(line 4, column 1\)/,
    },
    "a config the schema rejects": {
        stack: "rejected",
        text: () => {
            const { config } = devConfig();
            const bad = withConfig(config, { [`${PROJECT}:controlPlane`]: { nats: { workerAuth: "jwt" } } });
            return stringify({ config: { ...bad, [`${PROJECT}:ngcApiKey`]: { secure: "v1:AAAA" } } });
        },
        says: /Invalid stack configuration:\n {2}- nvcf-self-managed:controlPlane\.nats\.workerAuth: nats\.workerAuth must be nkey or token; given "jwt"/,
    },
} as const;

/** Each command as a user runs it on a stack of `dir`, with the prefix its messages carry. */
const COMMANDS: Record<string, { prefix: string; run: (stack: string, dir: string, io: Io) => Promise<number> }> = {
    render: { prefix: "", run: (stack, dir, io) => renderCli(["--stack", stack, "--dir", dir], io, {}) },
    status: { prefix: "status: ", run: (stack, dir, io) => statusCli(["--stack", stack, "--dir", dir], io, {}) },
    upgrade: { prefix: "upgrade: ", run: (stack, dir, io) => upgradeCli(["--stack", stack, "--dir", dir, "--plan"], io, {}) },
};

let dir: string;
before(() => {
    // The same program (links), with stack files of its own.
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "nvcf-wrong-stack-"));
    for (const entry of fs.readdirSync(ROOT)) {
        if (entry !== ".git" && !/^Pulumi\..+\.yaml$/.test(entry)) fs.symlinkSync(path.join(ROOT, entry), path.join(dir, entry));
    }
    for (const kind of Object.values(KINDS)) fs.writeFileSync(path.join(dir, `Pulumi.${kind.stack}.yaml`), kind.text());
});
after(() => fs.rmSync(dir, { recursive: true, force: true }));

describe("a wrong stack file: what is wrong, and exit 2, in every command that reads it", () => {
    for (const [name, command] of Object.entries(COMMANDS)) {
        for (const [what, kind] of Object.entries(KINDS)) {
            test(`${name}: ${what}`, async () => {
                const io = capture();
                assert.equal(await command.run(kind.stack, dir, io), 2, io.stderr);
                assert.equal(io.stdout, "");
                assert.ok(io.stderr.startsWith(command.prefix), io.stderr);
                assert.match(io.stderr, kind.says);
                assert.doesNotMatch(io.stderr, /\n\s+at /, "no stack trace");
            });
        }
    }
});
