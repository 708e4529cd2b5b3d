import type { ConfigProblem } from "../model/errors";
import { PROJECT, type SecretKey } from "../model/keys";

/**
 * Secret keys set without `--secret`. The secret keys are not declared in Pulumi.yaml (the
 * CLI would make them required), so the CLI's own refusal of a plain-text secret is done here.
 */
export function plaintextSecretProblems(keys: readonly SecretKey[]): ConfigProblem[] {
    return keys.map((key) => ({
        key: `${PROJECT}:${key}`,
        message: `is stored in plain text in the stack file: set it again with \`pulumi config set --secret ${key}\``,
    }));
}
