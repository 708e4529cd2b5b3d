/**
 * A mistyped option names the option meant when one known option is close (issue #47), for every
 * command, and says nothing more when none is.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { parseOptions, UsageError } from "../scripts/lib/cli";
import { planDiffCli } from "../scripts/plan-diff/cli";
import { fleetCli } from "../scripts/fleet/cli";
import { recoverCli } from "../scripts/recover/cli";
import { renderCli } from "../scripts/render/cli";
import { statusCli } from "../scripts/status/cli";
import { upgradeCli } from "../scripts/upgrade/cli";
import { capture } from "./support/capture";

const RENDER_OPTIONS = {
    stack: { type: "string" },
    out: { type: "string" },
    format: { type: "string" },
    dir: { type: "string" },
    "assume-secret": { type: "string", multiple: true },
    "no-assume-secrets": { type: "boolean" },
} as const;

/** The message parseOptions rejects `argv` with. */
function rejection(argv: readonly string[], options: Parameters<typeof parseOptions>[1] = RENDER_OPTIONS): string {
    try {
        parseOptions(argv, options);
    } catch (error) {
        assert.ok(error instanceof UsageError, String(error));
        return error.message;
    }
    assert.fail(`${argv.join(" ")} was accepted`);
}

describe("a mistyped option", () => {
    test("a close typo names the option meant", () => {
        assert.equal(rejection(["--fromat", "json"]), "Unknown option '--fromat'. Did you mean --format?");
        assert.equal(rejection(["--fromat=json"]), "Unknown option '--fromat'. Did you mean --format?");
        assert.equal(rejection(["--stak", "dev"]), "Unknown option '--stak'. Did you mean --stack?");
        assert.equal(rejection(["--no-assume-secret"]), "Unknown option '--no-assume-secret'. Did you mean --no-assume-secrets?");
    });

    test("the start of one option's name names it", () => {
        assert.equal(rejection(["--no-assume"]), "Unknown option '--no-assume'. Did you mean --no-assume-secrets?");
    });

    test("a far one gets Node's message alone", () => {
        assert.equal(rejection(["--verbose"]), "Unknown option '--verbose'");
        assert.equal(rejection(["-x"]), "Unknown option '-x'");
    });

    test("a one-letter name is not 'near' every short option", () => {
        // `--to` is two edits away, as close as any typo suggests, but those are all of `--q`'s letters and more.
        assert.equal(rejection(["--q"], { to: { type: "string" }, stack: { type: "string" } }), "Unknown option '--q'");
    });

    test("two options equally close: neither is named", () => {
        assert.equal(rejection(["--stuck"], { stack: { type: "string" }, stock: { type: "string" } }), "Unknown option '--stuck'");
    });

    test("a known option still parses, and a missing value is still Node's message", () => {
        assert.deepEqual({ ...parseOptions(["--format", "json", "--stack=dev"], RENDER_OPTIONS) }, { format: "json", stack: "dev" });
        assert.equal(rejection(["--format"]), "Option '--format <value>' argument missing");
    });

    const commands: [string, (argv: string[], io: ReturnType<typeof capture>) => Promise<number>, string[], string][] = [
        ["render", (argv, io) => renderCli(argv, io, {}), ["--stack", "dev", "--fromat", "json"], "--fromat'. Did you mean --format?"],
        [
            "fleet",
            (argv, io) => fleetCli(argv, io, {}),
            ["status", "--stack", "dev", "--kubeconifg", "k"],
            "--kubeconifg'. Did you mean --kubeconfig?",
        ],
        ["plan-diff", (argv, io) => planDiffCli(argv, io, {}), ["--stack", "dev", "--bsae", "HEAD"], "--bsae'. Did you mean --base?"],
        ["recover", (argv, io) => recoverCli(argv, io, {}), ["--stack", "dev", "--dry-rnu"], "--dry-rnu'. Did you mean --dry-run?"],
        ["status", (argv, io) => statusCli(argv, io, {}), ["--stack", "dev", "--wtach", "5"], "--wtach'. Did you mean --watch?"],
        ["upgrade", (argv, io) => upgradeCli(argv, io, {}), ["--stack", "dev", "--restrat"], "--restrat'. Did you mean --restart?"],
    ];
    for (const [name, cli, argv, suggestion] of commands) {
        test(`${name}: exit 2, the suggestion, then the usage`, async () => {
            const io = capture();
            assert.equal(await cli(argv, io), 2);
            assert.ok(io.stderr.startsWith(`Unknown option '${suggestion}\nusage: `), io.stderr);
            assert.equal(io.stdout, "");
        });
    }
});
