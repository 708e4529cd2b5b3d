/**
 * docs/errors.md says it lists every message: every message template of the settings (config/),
 * every message the components, the library (lib/) and the commands throw, and the ones the
 * commands print for a bad stack file, a missing tool or kubeconfig, each has an entry.
 * (The fuzz test holds the messages its rejected stacks print to the same file.)
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, test } from "node:test";
import { PULUMI_CLI_MISSING } from "../scripts/lib/pulumi-errors";
import { noDefaultKubeconfig } from "../lib/cluster-access/access";
import {
    documentedMessages,
    sourceFiles,
    templateDocumented,
    thrownTemplates,
    undocumented,
    undocumentedTemplates,
} from "./support/errors-doc";

const ROOT = path.resolve(__dirname, "..");

describe("docs/errors.md has an entry for every message", () => {
    const documented = documentedMessages();

    test("the patterns are read from the tables", () => {
        assert.ok(documented.length > 100, `${documented.length} patterns`);
        assert.ok(documented.some((d) => d.re.test("Invalid input: expected object, received string")));
        assert.ok(!documented.some((d) => d.re.test("a message nobody wrote")));
        assert.equal(templateDocumented("a brand new failure of ${x} that nobody wrote down", documented), false);
        assert.equal(templateDocumented("the kubeconfig has no context ${access.context}", documented), true);
    });

    test("every message template of the settings' schemas and rules", () => {
        const files = sourceFiles(ROOT, "config");
        assert.ok(files.includes(path.join("config", "rules", "index.ts")), "config/ is read with its folders");
        const missing = files.flatMap((f) =>
            undocumentedTemplates(fs.readFileSync(path.join(ROOT, f), "utf8"), documented).map((m) => `${f}: ${m}`),
        );
        assert.deepEqual(missing, []);
    });

    test("every message the program's components and the commands throw", () => {
        // The repository's own test and CI harness (not what a user runs): the pull-request workflow's
        // replay, the end-to-end and parity tools, the lint rule, the unit suite's and the render's benchmarks and the mock engine's guards over the SDK.
        const harness =
            /^scripts\/(workflow\/|e2e\/|lint\/|bench\/(tests|render-cpu)\.ts|parity\/(?!template-reads)|lib\/(recording-monitor|mock-engine)\.ts)/;
        const thrown = [...sourceFiles(ROOT, "components"), ...sourceFiles(ROOT, "lib"), ...sourceFiles(ROOT, "scripts")].filter(
            (f) => !harness.test(f),
        );
        const templates = thrown.flatMap((f) => thrownTemplates(fs.readFileSync(path.join(ROOT, f), "utf8")).map((t) => [f, t] as const));
        assert.ok(templates.length > 100, `${templates.length} messages`);
        assert.deepEqual(
            templates.filter(([, t]) => !templateDocumented(t, documented)).map(([f, t]) => `${f}: ${t}`),
            [],
        );
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
