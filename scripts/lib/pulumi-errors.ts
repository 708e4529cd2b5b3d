/** What the commands say when the Pulumi CLI, which the Automation API runs, fails or is missing. */

import { messageOf } from "../../lib/text/message-of";

export const PULUMI_CLI_MISSING =
    "the Pulumi CLI was not found on PATH: install it (curl -fsSL https://get.pulumi.com | sh, or https://www.pulumi.com/docs/iac/download-install/), " +
    "open a new shell so that `pulumi version` answers, and run the command again";

interface CommandErrorLike {
    readonly message?: string;
    readonly commandResult?: {
        readonly stderr?: string;
        readonly code?: number;
        readonly err?: { readonly code?: string; readonly path?: string };
    };
}

/**
 * A failed CLI command as the user should read it: a CLI that is not installed said so (the
 * Automation API reports it as `code: -2` with `spawn pulumi ENOENT` inside), else what the
 * command said on stderr (its stdout may hold state, so it is never shown), else its message.
 */
export function cliError(error: unknown): string {
    const e = (error ?? {}) as CommandErrorLike;
    const result = e.commandResult;
    const spawnError = result?.err ?? (error as { code?: string; path?: string });
    if (spawnError?.code === "ENOENT" && /(^|\/)pulumi$/.test(spawnError.path ?? "")) return PULUMI_CLI_MISSING;
    const text = (result?.stderr ?? messageOf(error)).trim();
    return text || `the Pulumi CLI exited with code ${result?.code ?? "unknown"} and said nothing on stderr`;
}
