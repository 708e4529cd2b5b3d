import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, describe, test } from "node:test";
import { stackConfig } from "../scripts/lib/stack-config";

describe("stack files the offline tools cannot read name the file and line", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "nvcf-stack-file-"));
    after(() => fs.rmSync(dir, { recursive: true, force: true }));
    const read = (stack: string, text: string) => {
        fs.writeFileSync(path.join(dir, `Pulumi.${stack}.yaml`), text);
        return () => stackConfig(stack, dir);
    };

    test("invalid YAML", () => {
        assert.throws(read("bad", "config:\n  a: [1, 2\n"), {
            name: "StackFileError",
            message: /^Pulumi\.bad\.yaml: not valid YAML: .*\(line \d+, column \d+\)$/,
        });
    });
    test("an empty file", () => {
        assert.throws(read("empty", ""), {
            name: "StackFileError",
            message: "Pulumi.empty.yaml is empty: a stack file holds a `config:` map (start from Pulumi.dev.yaml)",
        });
    });
    test("a document that is not a map of settings", () => {
        assert.throws(read("list", "- a\n"), { name: "StackFileError", message: /^Pulumi\.list\.yaml: expected a `config:` map/ });
        assert.throws(read("scalar-config", "config: 3\n"), { name: "StackFileError" });
    });
    test("a file with no config, and a normal one, read as before", () => {
        assert.deepEqual(read("none", "encryptionsalt: abc\n")(), { config: {}, secretKeys: [] });
        assert.deepEqual(read("ok", "config:\n  p:k: {secure: v1:x}\n  p:o: {a: 1}\n")(), {
            config: { "p:k": "placeholder-for-k", "p:o": { a: 1 } },
            secretKeys: ["p:k"],
        });
    });
});
