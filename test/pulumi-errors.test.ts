import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { cliError, PULUMI_CLI_MISSING } from "../scripts/lib/pulumi-errors";

/** The Automation API's CommandError when `pulumi` is not on PATH, as @pulumi/pulumi 3.276 throws it (recorded). */
function missingCli(): Error {
    return Object.assign(new Error("code: -2\n stdout: \n stderr: Command failed with ENOENT: pulumi version\nspawn pulumi ENOENT\n"), {
        name: "CommandError",
        commandResult: {
            stdout: "",
            stderr: "Command failed with ENOENT: pulumi version\nspawn pulumi ENOENT",
            code: -2,
            err: { errno: -2, code: "ENOENT", syscall: "spawn pulumi", path: "pulumi", spawnargs: ["version"] },
        },
    });
}

describe("a failed Pulumi CLI command, as the commands report it", () => {
    it("a missing CLI is named, with how to install it", () => {
        assert.equal(cliError(missingCli()), PULUMI_CLI_MISSING);
        assert.match(PULUMI_CLI_MISSING, /not found on PATH: install it/);
    });
    it("otherwise, what the CLI said on stderr, never its stdout", () => {
        const err = Object.assign(new Error("code: 255"), {
            commandResult: { stdout: '{"secret":"s3cr3t"}', stderr: "error: incorrect passphrase\n", code: 255 },
        });
        assert.equal(cliError(err), "error: incorrect passphrase");
    });
    it("a command that said nothing on stderr gives its exit code; any other error its message", () => {
        assert.equal(
            cliError(Object.assign(new Error("x"), { commandResult: { stderr: "", code: 3 } })),
            "the Pulumi CLI exited with code 3 and said nothing on stderr",
        );
        assert.equal(cliError(new Error("the backend is unreachable")), "the backend is unreachable");
        // Another program missing is not the Pulumi CLI.
        assert.match(cliError(Object.assign(new Error("spawn helm ENOENT"), { code: "ENOENT", path: "helm" })), /spawn helm ENOENT/);
    });
});
