import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, describe, test } from "node:test";
import { stackConfig } from "../scripts/lib/stack-config";
import { PROJECT, runProgram } from "./support/harness";

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

    test("secrets set with --path, and kubeconfig secrets, as the program needs them to render", async () => {
        // What `pulumi config set --secret kubeconfig` and `--secret --path 'computePlaneKubeconfigs.gpu-b'` leave.
        const dev = fs.readFileSync(path.join(__dirname, "..", "Pulumi.dev.yaml"), "utf8");
        const secret = "{secure: v1:bm90LWEtcmVhbC1jaXBoZXJ0ZXh0}";
        const text = `${dev}  ${PROJECT}:kubeconfig: ${secret}\n  ${PROJECT}:computePlaneKubeconfigs:\n    gpu-b: ${secret}\n  ${PROJECT}:computePlanes:\n    - clusterName: gpu-b\n`;
        const { config, secretKeys } = read("paths", text)();
        assert.deepEqual(secretKeys.filter((k) => /kubeconfig/i.test(k)).sort(), [
            `${PROJECT}:computePlaneKubeconfigs`,
            `${PROJECT}:kubeconfig`,
        ]);
        const planes = config[`${PROJECT}:computePlaneKubeconfigs`] as Record<string, string>;
        assert.deepEqual(Object.keys(planes), ["gpu-b"]);
        for (const kubeconfig of [config[`${PROJECT}:kubeconfig`] as string, planes["gpu-b"]]) {
            assert.match(kubeconfig, /^# placeholder-for-(kubeconfig|computePlaneKubeconfigs\.gpu-b): /);
            assert.ok(!kubeconfig.includes("v1:"), "never the ciphertext");
        }
        // The program takes them: the GPU cluster reached only through the secret renders.
        const run = await runProgram({ ...config, [`${PROJECT}:ngcApiKey`]: "k" }, [...secretKeys, `${PROJECT}:ngcApiKey`], "paths");
        assert.ok(run.resources.some((r) => r.name === "compute-plane-gpu-b-registration"));
    });
});
