/**
 * docs/errors.md says it lists every message: every message template of the settings (config/) and
 * the ones the commands print for a bad stack file, a missing tool or kubeconfig, each has an entry.
 * (The fuzz test holds the messages its rejected stacks print to the same file.)
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, test } from "node:test";
import { PULUMI_CLI_MISSING } from "../scripts/lib/pulumi-errors";
import { noDefaultKubeconfig } from "../components/providers/kube-access";
import { documentedMessages, undocumented, undocumentedTemplates } from "./support/errors-doc";

const ROOT = path.resolve(__dirname, "..");

describe("docs/errors.md has an entry for every message", () => {
    const documented = documentedMessages();

    test("the patterns are read from the tables", () => {
        assert.ok(documented.length > 100, `${documented.length} patterns`);
        assert.ok(documented.some((d) => d.re.test("Invalid input: expected object, received string")));
        assert.ok(!documented.some((d) => d.re.test("a message nobody wrote")));
    });

    test("every message template of the settings' schemas and rules", () => {
        const missing = fs
            .readdirSync(path.join(ROOT, "config"))
            .filter((f) => f.endsWith(".ts"))
            .flatMap((f) =>
                undocumentedTemplates(fs.readFileSync(path.join(ROOT, "config", f), "utf8"), documented).map((m) => `${f}: ${m}`),
            );
        assert.deepEqual(missing, []);
    });

    test("the messages of the commands for a bad stack file, a missing CLI or kubeconfig, an unknown revision", () => {
        assert.deepEqual(
            undocumented(
                [
                    "Pulumi.dev.yaml is empty: a stack file holds a `config:` map (start from Pulumi.dev.yaml)",
                    "Pulumi.dev.yaml: expected a `config:` map of settings at line 1 (start from Pulumi.dev.yaml)",
                    'unknown git revision "origin/nope" in /repo (in a shallow clone, fetch it first)',
                    'invalid stack name ".x"',
                    PULUMI_CLI_MISSING,
                    noDefaultKubeconfig({}, "/home/u", () => false)!,
                    "is not a kubeconfig: its YAML is not a mapping (apiVersion, clusters, contexts, users)",
                ],
                documented,
            ),
            [],
        );
    });
});
