import * as assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { describe, test } from "node:test";
import * as pulumi from "@pulumi/pulumi";
import { codeDigest, importClosure } from "../components/resources/code-digest";
import { PROVIDERS, providerReference, type ProviderName } from "../components/resources/provider-reference";

const ROOT = path.resolve(__dirname, "..");

/**
 * Every provider a state of this program may name, as `file#export`: a released state keeps the
 * name its resource was created with and its delete loads the provider by it. Only ever add here.
 */
const NAMED_IN_STATES = [
    "components/providers/bundle-receipt-key.ts#ReceiptKeyProvider",
    "components/providers/cluster-checks.ts#ClusterChecksProvider",
    "components/providers/cluster-registration.ts#ClusterRegistrationProvider",
    "components/providers/nvca-teardown.ts#NvcaTeardownProvider",
    "components/providers/openbao-cassandra-password.ts#CassandraPasswordProvider",
    "components/providers/openbao-grant-revocation.ts#GrantRevocationProvider",
    "components/providers/openbao-jwt-baseline.ts#JwtBaselineProvider",
    "components/providers/openbao-kv-credential.ts#KvCredentialProvider",
    "components/providers/openbao-mek-rotation.ts#MekRotationProvider",
    "components/providers/openbao-nkey-rotation.ts#NkeyRotationProvider",
    "components/providers/openbao-rollout.ts#OpenBaoRolloutProvider",
    "components/providers/release-drift-correction.ts#DriftCorrectionProvider",
    "components/providers/smoke-check.ts#SmokeCheckProvider",
];

/** A resource's `__provider` input, as the engine serialises its provider. */
async function serialised(name: ProviderName): Promise<string> {
    const reference = providerReference(name);
    return (await pulumi.runtime.serializeFunction(() => reference, { allowSecrets: true })).text;
}

/**
 * What @pulumi/pulumi/cmd/dynamic-provider does with each text, in a plain Node process in the
 * project's directory as the engine starts it (no tsx): load it, configure it, then `operation`.
 */
function inHost(texts: string[], operation: string): unknown[] {
    const script = `
        const requireFromString = require(require.resolve("require-from-string", { paths: [require.resolve("@pulumi/pulumi")] }));
        (async () => {
            const results = [];
            for (const text of JSON.parse(require("node:fs").readFileSync(0, "utf8"))) {
                const provider = requireFromString(text).handler();
                try {
                    await provider.configure({ config: new Map() });
                    results.push(await (${operation})(provider));
                } catch (err) {
                    results.push({ error: err.message });
                }
            }
            process.stdout.write(JSON.stringify(results));
        })();`;
    const env = { ...process.env };
    delete env.NODE_OPTIONS;
    const res = spawnSync(process.execPath, ["-e", script], { cwd: ROOT, input: JSON.stringify(texts), env, encoding: "utf8" });
    assert.equal(res.status, 0, res.stderr);
    return JSON.parse(res.stdout) as unknown[];
}

describe("dynamic resources reference their provider's code", () => {
    test("a resource carries where its code is and the code's digest, not the code", async () => {
        const text = await serialised("bundle-receipt-key");
        const digest = codeDigest("components/providers/bundle-receipt-key.ts");
        assert.ok(text.includes(`source: "components/providers/bundle-receipt-key.ts#ReceiptKeyProvider sha256:${digest}"`), text);
        // The provider's own code (its create makes the key with randomBytes) stays in its file.
        assert.doesNotMatch(text, /randomBytes/);
        assert.ok(text.length < 5000, `${text.length} characters`);
    });

    test("the engine's provider host loads the code from the reference, and it works", async () => {
        const results = inHost([await serialised("bundle-receipt-key")], "(p) => p.create({})");
        const [created] = results as { id: string; outs: { key: string } }[];
        assert.equal(created.id, "bundle-receipt-key");
        assert.match(created.outs.key, /^[0-9a-f]{64}$/);
    });

    test("every name a state may hold loads in the host as a provider", async () => {
        // A name left out of PROVIDERS cannot be loaded by an old state's delete; a new one is added to both lists.
        assert.deepEqual(
            Object.entries(PROVIDERS)
                .map(([name, exported]) => `components/providers/${name}.ts#${exported}`)
                .sort(),
            [...NAMED_IN_STATES].sort(),
        );
        const texts = await Promise.all(Object.keys(PROVIDERS).map((name) => serialised(name as ProviderName)));
        const results = inHost(texts, "(p) => p.check({}, {}).then(() => 'loaded')");
        assert.deepEqual(
            results,
            texts.map(() => "loaded"),
        );
    });

    test("a checkout without the provider's file says where it looked and what to do", async () => {
        const text = (await serialised("bundle-receipt-key")).replaceAll("bundle-receipt-key.ts", "gone.ts");
        const results = inHost([text], "(p) => p.create({})");
        assert.deepEqual(results, [
            {
                error: `the dynamic provider's code components/providers/gone.ts is not in ${ROOT}: run pulumi in the checkout of nvcf-self-managed that holds this stack's program`,
            },
        ]);
    });
});

describe("a provider's code digest", () => {
    const tree = (files: Record<string, string>): string => {
        const root = fs.mkdtempSync(path.join(os.tmpdir(), "code-digest-"));
        for (const [file, text] of Object.entries(files)) {
            fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
            fs.writeFileSync(path.join(root, file), text);
        }
        return root;
    };
    const files = {
        "p/provider.ts": 'import { run } from "../lib/run";\nimport type { Shape } from "../lib/shape";\nexport const x = run;\n',
        "lib/run.ts": 'export { helper } from "./helper";\nexport function run() {}\n',
        "lib/helper/index.ts": "export const helper = 1;\n",
        "lib/shape.ts": "export interface Shape { a: number }\n",
        "lib/other.ts": "export const other = 2;\n",
    };

    test("covers the file and what it imports to run, through re-exports and folders; not type-only imports", () => {
        const root = tree(files);
        assert.deepEqual(
            importClosure(path.join(root, "p/provider.ts")).map((f) => path.relative(root, f)),
            ["lib/helper/index.ts", "lib/run.ts", "p/provider.ts"],
        );
    });

    test("changes when code the provider runs changes, and only then", () => {
        const before = codeDigest("p/provider.ts", tree(files));
        assert.equal(codeDigest("p/provider.ts", tree(files)), before, "the same code, elsewhere: the same digest");
        assert.notEqual(codeDigest("p/provider.ts", tree({ ...files, "lib/helper/index.ts": "export const helper = 2;\n" })), before);
        assert.equal(codeDigest("p/provider.ts", tree({ ...files, "lib/other.ts": "export const other = 3;\n" })), before);
        assert.equal(codeDigest("p/provider.ts", tree({ ...files, "lib/shape.ts": "export interface Shape { b: string }\n" })), before);
    });

    test("the program's providers: the receipt key's code is its file and the kit's, never OpenBao's", () => {
        const closure = importClosure(path.join(ROOT, "components/providers/bundle-receipt-key.ts")).map((f) => path.relative(ROOT, f));
        assert.ok(closure.includes("components/providers/kit.ts"), closure.join(", "));
        assert.ok(!closure.some((f) => f.startsWith("lib/openbao/")), closure.join(", "));
        const rollout = importClosure(path.join(ROOT, "components/providers/openbao-rollout.ts")).map((f) => path.relative(ROOT, f));
        assert.ok(rollout.includes("lib/openbao/rollout.ts"), rollout.join(", "));
    });
});
