import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, before, describe, test } from "node:test";
import { parse as parseYaml, stringify } from "yaml";
import type { KubeAccess } from "../lib/cluster-access/access";
import { upgradeCli } from "../scripts/upgrade/cli";
import { WorldEngine, WorldKube } from "./support/upgrade-world";

const ROOT = path.resolve(__dirname, "..");

/** `npm run upgrade` in this process, with a stand-in engine and cluster. */
async function upgrade(argv: string[], env: NodeJS.ProcessEnv = {}, deps: Parameters<typeof upgradeCli>[3] = {}) {
    let stdout = "";
    let stderr = "";
    const code = await upgradeCli(argv, { out: (t) => (stdout += t), err: (t) => (stderr += t) }, env, deps);
    return { code, stdout, stderr };
}

describe("npm run upgrade: its command line", () => {
    let dir: string;
    before(() => {
        // A checkout with a stack whose kubeconfig is a secret (as pulumi config set --secret leaves it).
        dir = fs.mkdtempSync(path.join(os.tmpdir(), "nvcf-upgrade-cli-"));
        fs.copyFileSync(path.join(ROOT, "Pulumi.yaml"), path.join(dir, "Pulumi.yaml"));
        const doc = parseYaml(fs.readFileSync(path.join(ROOT, "Pulumi.dev.yaml"), "utf8")) as { config: Record<string, unknown> };
        doc.config["nvcf-self-managed:kubeconfig"] = { secure: "v1:ciphertext" };
        fs.writeFileSync(path.join(dir, "Pulumi.st.yaml"), stringify(doc));
    });
    after(() => fs.rmSync(dir, { recursive: true, force: true }));

    test("--help, and usage errors that stop before anything is read", async () => {
        const help = await upgrade(["--help"]);
        assert.equal(help.code, 0);
        assert.match(help.stdout, /runbook stages: preflight, compute planes, NATS drain gate, OpenBao, dependencies \(01\)/);
        const cases: [string[], NodeJS.ProcessEnv, RegExp][] = [
            [[], {}, /--stack is required/],
            [["--stack", "nope", "--dir", dir], {}, /no stack file .*Pulumi\.nope\.yaml/],
            [
                ["--stack", "st", "--dir", dir, "--queue", "fn-1"],
                {},
                /--queue takes <function id>\[:<version id>\], each a UUID; given "fn-1"/,
            ],
            [
                ["--stack", "st", "--dir", dir, "--queue", "0b6e6a3c-5b1f-4e0a-9a43-0c7f3e5d1a01"],
                {},
                /--queue needs an NVCF API key with the queue_details scope in NVCF_API_KEY/,
            ],
            [["--stack", "st", "--dir", dir, "--timeout", "0"], {}, /--timeout takes a whole number of seconds, at least 1; given "0"/],
            [["--stack", "st", "--dir", dir, "--kubeconfig-for", "gpu-x"], {}, /--kubeconfig-for takes <plane>=<file>/],
        ];
        for (const [argv, env, expected] of cases) {
            const res = await upgrade(argv, env);
            assert.equal(res.code, 2, argv.join(" "));
            assert.match(res.stderr, expected);
            assert.match(res.stderr, /usage: npm run upgrade -- --stack <name>/);
        }
        const npm = await upgrade(["st"], { npm_lifecycle_event: "upgrade", npm_config_stack: "true" });
        assert.match(npm.stderr, /npm took --stack for itself \(a `--` is missing\): npm run upgrade -- --stack st/);
    });

    test("the stack's kubeconfig secret is read through Pulumi and reaches the checks; nothing else of the engine runs for --plan", async () => {
        const kube = new WorldKube();
        const engine = new WorldEngine(kube, [], { release: "0.8.0" } as never);
        let asked = "";
        engine.config = async (key?: string) => {
            asked = key ?? "";
            return "apiVersion: v1\nkind: Config\n# the stack's kubeconfig\n";
        };
        const reached: KubeAccess[] = [];
        const res = await upgrade(
            ["--stack", "st", "--dir", dir, "--plan", "--from", "0.8.0"],
            {},
            {
                engine: async (root, stack, project) => {
                    assert.deepEqual([root, stack, project], [dir, "st", "nvcf-self-managed"]);
                    return engine;
                },
                connect: async (access) => {
                    reached.push(access);
                    return kube;
                },
            },
        );
        assert.equal(res.code, 0, res.stdout + res.stderr);
        assert.equal(asked, "kubeconfig");
        assert.deepEqual(
            reached.map((a) => [a.source, a.kubeconfig?.includes("the stack's kubeconfig")]),
            [["the stack secret kubeconfig", true]],
        );
        assert.match(res.stdout, /Plan of the upgrade from bundle release 0\.8\.0 to 0\.8\.0/);
        assert.deepEqual(engine.ups, []);
    });

    test("a cluster the command cannot reach stops it before any stage", async () => {
        const res = await upgrade(
            ["--stack", "st", "--dir", dir],
            {},
            {
                engine: async () => new WorldEngine(new WorldKube(), [], { release: "0.8.0" } as never),
                connect: async () => {
                    throw new Error("no such context dev-admin");
                },
            },
        );
        assert.equal(res.code, 2);
        assert.match(res.stderr, /upgrade: the control plane's kubeconfig could not be used: no such context dev-admin/);
    });
});
