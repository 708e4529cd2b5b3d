/**
 * `npm run render`: the dev stack's desired state, offline. Most checks run on one in-process
 * render with the secrets a user sets; the command itself runs in-process too (the SDK takes
 * seconds to load in a new process).
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, before, describe, test } from "node:test";
import { parseAllDocuments, stringify } from "yaml";
import { inBackground, runToEnd } from "./support/background";
import { capture } from "./support/capture";
import { runOrFailHere } from "./support/program-runs";
import { formatJson } from "../scripts/render/format-json";
import { formatMermaid } from "../scripts/render/format-mermaid";
import { formatValues } from "../scripts/render/format-values";
import { TSX_NODE_ARGS } from "../scripts/lib/repo";
import { toRenderedStack } from "../scripts/lib/render";
import { renderCli } from "../scripts/render/cli";
import { HELM_RELEASE, RenderedStack, SECRET } from "../scripts/lib/rendered";
import { devConfig, ProgramRun, PROJECT, RecordedResource, runProgram, runProgramExpectingError, withConfig } from "./support/harness";

const ROOT = path.resolve(__dirname, "..");
const SIG = "4dabf18193072939515e22adb298388d";
const NGC_KEY = "nvapi-test-key";
/** Every form a secret of the test run could take in the output. */
const SECRET_TEXTS = [
    NGC_KEY,
    Buffer.from(NGC_KEY).toString("base64"),
    Buffer.from(`$oauthtoken:${NGC_KEY}`).toString("base64"),
    "generated-cassandra-password",
    "placeholder-for-",
];

let tmp: string;
let run: ProgramRun;
let rendered: RenderedStack;

/** Paths (from the inputs' root) of every secret envelope in a registration. */
function secretPaths(value: unknown, at: (string | number)[] = []): (string | number)[][] {
    if (Array.isArray(value)) return value.flatMap((v, i) => secretPaths(v, [...at, i]));
    if (value === null || typeof value !== "object") return [];
    const obj = value as Record<string, unknown>;
    if (obj[SIG] !== undefined) return [at];
    return Object.entries(obj).flatMap(([k, v]) => secretPaths(v, [...at, k]));
}

function at(value: unknown, parts: readonly (string | number)[]): unknown {
    return parts.reduce<unknown>((v, p) => (v as Record<string | number, unknown>)[p], value);
}

before(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), "nvcf-render-test-"));
    const { config, secretKeys } = devConfig();
    run = await runProgram(config, secretKeys, "dev");
    rendered = toRenderedStack(run.resources, { stack: "dev", project: PROJECT });
});

after(() => {
    fs.rmSync(tmp, { recursive: true, force: true });
});

describe("render: the JSON desired state", () => {
    test("every registered resource appears once, sorted by URN, with its parent, provider and dependencies", () => {
        const urns = rendered.resources.map((r) => r.urn);
        assert.deepEqual(urns, run.resources.map((r) => r.urn).sort());
        assert.equal(new Set(urns).size, urns.length);
        for (const recorded of run.resources) {
            const r = rendered.resources.find((x) => x.urn === recorded.urn)!;
            assert.equal(r.type, recorded.type);
            assert.equal(r.name, recorded.name);
            assert.equal(r.parent, recorded.parent || null);
            assert.deepEqual(r.dependsOn, [...new Set(recorded.dependencies)].sort());
            // A provider reference is `<urn>::<id>`; the render keeps the URN of a resource it lists.
            if (recorded.provider === "") assert.equal(r.provider, null);
            else assert.ok(r.provider !== null && recorded.provider.startsWith(`${r.provider}::`) && urns.includes(r.provider), r.urn);
        }
        // Components are in it too, and the kinds a reviewer looks for.
        const types = new Set(rendered.resources.map((r) => r.type));
        for (const t of ["nvcf:control-plane:ControlPlane", HELM_RELEASE, "kubernetes:core/v1:Namespace", "pulumi:providers:kubernetes"]) {
            assert.ok(types.has(t), t);
        }
    });

    test("the documented shape: stack, project, resources with exactly the documented fields", () => {
        const doc = JSON.parse(formatJson(rendered)) as Record<string, unknown>;
        assert.deepEqual(Object.keys(doc), ["stack", "project", "resources"]);
        assert.equal(doc.stack, "dev");
        assert.equal(doc.project, PROJECT);
        for (const r of doc.resources as Record<string, unknown>[]) {
            assert.deepEqual(Object.keys(r), ["urn", "type", "name", "parent", "provider", "dependsOn", "inputs"]);
            assert.ok(r.parent === null || typeof r.parent === "string");
            assert.ok(r.provider === null || typeof r.provider === "string");
            assert.ok(Array.isArray(r.dependsOn));
            assert.ok(r.inputs !== null && typeof r.inputs === "object" && !Array.isArray(r.inputs));
        }
    });

    test("each secret value, and only it, is [secret]; the rest of the values stays readable", () => {
        let secrets = 0;
        for (const recorded of run.resources) {
            const r = rendered.resources.find((x) => x.urn === recorded.urn)!;
            for (const p of secretPaths(recorded.rawInputs)) {
                assert.equal(at(r.inputs, p), SECRET, `${r.name} ${p.join(".")}`);
                secrets++;
            }
        }
        assert.ok(secrets > 0, "the dev stack has secrets (NGC key, Cassandra password)");
        // Nothing else was turned into the marker.
        assert.equal(formatJson(rendered).split(`"${SECRET}"`).length - 1, secrets);
        const cassandra = rendered.resources.find((r) => r.type === HELM_RELEASE && r.inputs.name === "cassandra")!;
        const values = cassandra.inputs.values as { cassandra: Record<string, unknown> };
        assert.equal(values.cassandra.serviceRolePassword, SECRET);
        assert.equal(values.cassandra.replicaCount, 3);
    });

    test("no secret plaintext in any format", () => {
        for (const [format, text] of [
            ["json", formatJson(rendered)],
            ["mermaid", formatMermaid(rendered)],
            ["values", formatValues(rendered)],
        ]) {
            for (const secret of SECRET_TEXTS) assert.ok(!text.includes(secret), `${format} contains ${secret}`);
        }
    });
});

describe("render: what the engine would refuse or nobody could read", () => {
    const recorded = (name: string, inputs: Record<string, unknown>): RecordedResource => ({
        type: "pulumi-nodejs:dynamic/nvcf:Thing",
        name,
        urn: `urn:pulumi:dev::p::pulumi-nodejs:dynamic/nvcf:Thing::${name}`,
        parent: "",
        provider: "",
        dependencies: [],
        inputs,
        rawInputs: inputs,
        custom: true,
        retainOnDelete: false,
        deleteBeforeReplace: false,
    });

    test("a dynamic resource's serialized provider code shows as a digest that follows the code", () => {
        const code = (body: string) => `exports.handler = function () { ${body} };`;
        const [a, b, c] = toRenderedStack(
            [
                recorded("a", { __provider: code("one") }),
                recorded("b", { __provider: code("one") }),
                recorded("c", { __provider: code("two") }),
            ],
            { stack: "dev", project: "p" },
        ).resources.map((r) => r.inputs.__provider);
        assert.match(String(a), /^\[provider code, sha256 [0-9a-f]{16}\]$/);
        assert.equal(a, b);
        assert.notEqual(a, c);
    });

    test("a URN registered twice is an error, as in `pulumi up`", () => {
        assert.throws(
            () => toRenderedStack([recorded("a", {}), recorded("a", {})], { stack: "dev", project: "p" }),
            /Duplicate resource URN/,
        );
    });
});

describe("render: the other formats", () => {
    test("mermaid draws each resource once, components as boxes around their children, every dependency", () => {
        const text = formatMermaid(rendered);
        const lines = text.trimEnd().split("\n");
        assert.equal(lines[0], "flowchart LR");
        const id = new Map(rendered.resources.map((r, i) => [r.urn, `r${i}`]));
        const declared = lines.map((l) => /^\s*(?:subgraph )?(r\d+)\["/.exec(l)?.[1]).filter((x) => x !== undefined);
        assert.deepEqual([...declared].sort(), [...id.values()].sort());
        const edges = lines.map((l) => l.trim()).filter((l) => /^r\d+ --> r\d+$/.test(l));
        const expected = rendered.resources.flatMap((r) => r.dependsOn.map((d) => `${id.get(d)} --> ${id.get(r.urn)}`));
        assert.deepEqual(edges.sort(), expected.sort());
        // The control plane's box holds its releases: indentation is the nesting.
        const cp = rendered.resources.find((r) => r.type === "nvcf:control-plane:ControlPlane")!;
        const start = lines.findIndex((l) => l.trim().startsWith(`subgraph ${id.get(cp.urn)}[`));
        const indent = lines[start].indexOf("subgraph");
        const end = lines.findIndex((l, i) => i > start && l === `${" ".repeat(indent)}end`);
        const inside = lines.slice(start + 1, end).join("\n");
        for (const r of rendered.resources.filter((x) => x.parent === cp.urn)) assert.ok(inside.includes(`${id.get(r.urn)}["`), r.name);
    });

    test("mermaid names the longest chain of steps that wait for workloads: at most 7 for the dev stack", () => {
        const line = formatMermaid(rendered)
            .split("\n")
            .find((l) => l.includes("the longest chain"));
        const m = /\((\d+)\): (.*)$/.exec(line ?? "");
        assert.ok(m, line);
        assert.ok(Number(m[1]) <= 7, line);
        const chain = m[2].split(" > ");
        assert.equal(chain.length, Number(m[1]));
        // OpenBao's migrations need the NATS Secrets; every platform service needs OpenBao; the gate waits for all.
        assert.deepEqual(chain.slice(0, 2), ["control-plane-nats", "control-plane-openbao-server"]);
        assert.equal(chain.at(-1), "control-plane-health-gate");
    });

    test("values: one YAML document per Helm release, headed by release, namespace, chart and version", () => {
        const text = formatValues(rendered);
        const docs = parseAllDocuments(text);
        const chunks = text.split(/^---\n/m).slice(1);
        const releases = rendered.resources.filter((r) => r.type === HELM_RELEASE);
        assert.ok(Array.isArray(docs));
        assert.equal(docs.length, releases.length);
        assert.equal(chunks.length, releases.length);
        releases.forEach((r, i) => {
            const { name, namespace, chart, version, values } = r.inputs as Record<string, unknown>;
            const heading = `# release: ${name}\n# namespace: ${namespace}\n# chart: ${chart}\n# version: ${version}\n`;
            assert.ok(chunks[i].startsWith(heading), chunks[i].slice(0, 300));
            assert.deepEqual(docs[i].toJS(), values, String(name));
        });
    });
});

describe("render: the command", () => {
    test("two renders of the dev stack give the same bytes, without a secret", async () => {
        const files = ["one.json", "two.json"].map((f) => path.join(tmp, f));
        for (const out of files) {
            const io = capture();
            assert.equal(
                await renderCli(
                    ["--stack", "dev", "--assume-secret", "ngcApiKey", "--out", out, "--dir", ROOT],
                    io,
                    process.env,
                    runOrFailHere,
                ),
                0,
                io.stderr,
            );
            assert.equal(io.stdout, "");
        }
        const bytes = fs.readFileSync(files[0]);
        assert.ok(bytes.equals(fs.readFileSync(files[1])), "the two renders differ");
        const text = bytes.toString("utf8");
        for (const secret of SECRET_TEXTS) assert.ok(!text.includes(secret), secret);
        const doc = JSON.parse(text) as { resources: { name: string }[] };
        assert.deepEqual(doc.resources.map((r) => r.name).sort(), rendered.resources.map((r) => r.name).sort());
    });

    // Usage errors return before the SDK loads, so a real process costs little here; started as
    // the file loads (see support/background.ts).
    const entryPoints = ["scripts/render/main.ts", "scripts/plan-diff/main.ts"].map((script) =>
        inBackground(async () => ({
            script,
            ...(await runToEnd(process.execPath, [...TSX_NODE_ARGS, script, "--stack", "dev", "--format", "nope"], { cwd: ROOT })),
        })),
    );
    test("the npm scripts' entry points pass the exit code on", async () => {
        for (const { script, code, stderr } of await Promise.all(entryPoints)) {
            assert.equal(code, 2, `${script}: ${stderr}`);
            assert.match(stderr, /usage: npm run --silent (render|plan-diff)/);
        }
    });

    test("a bad config: exit 2, the message pulumi up prints, nothing written", async () => {
        // A program directory beside this one: the same program (links), a stack file of its own.
        const dir = path.join(tmp, "program");
        fs.mkdirSync(dir);
        for (const entry of fs.readdirSync(ROOT)) {
            if (entry !== ".git" && !/^Pulumi\..+\.yaml$/.test(entry)) fs.symlinkSync(path.join(ROOT, entry), path.join(dir, entry));
        }
        const { config, secretKeys } = devConfig();
        const bad = withConfig(config, { [`${PROJECT}:controlPlane`]: { nats: { workerAuth: "jwt" } } });
        fs.writeFileSync(
            path.join(dir, "Pulumi.bad.yaml"),
            stringify({ config: { ...bad, [`${PROJECT}:ngcApiKey`]: { secure: "v1:AAAA" } } }),
        );
        const { error } = await runProgramExpectingError(bad, secretKeys);
        assert.match(error.message, /^Invalid stack configuration:\n {2}- nvcf-self-managed:controlPlane\.nats\.workerAuth: /);

        const out = path.join(tmp, "bad.json");
        const io = capture();
        assert.equal(await renderCli(["--stack", "bad", "--out", out, "--dir", dir], io), 2);
        assert.equal(io.stderr, `${error.message}\n`);
        assert.equal(io.stdout, "");
        assert.deepEqual(
            fs.readdirSync(tmp).filter((f) => f.startsWith("bad.json")),
            [],
        );
    });

    test("usage errors: exit 2 with the usage", async () => {
        for (const [args, message] of [
            [["--format", "json"], "--stack is required"],
            [["--stack", "dev", "--format", "yaml"], '--format must be one of json, mermaid, values; given "yaml"'],
            [["--stack", "nope", "--dir", ROOT], `no stack file ${path.join(ROOT, "Pulumi.nope.yaml")}`],
            [["--stack", "../dev", "--dir", ROOT], 'invalid stack name "../dev"'],
            [["--stack", "dev", "--verbose"], "Unknown option '--verbose'"],
        ] as const) {
            const io = capture();
            assert.equal(await renderCli(args, io), 2, args.join(" "));
            assert.ok(io.stderr.startsWith(message) && io.stderr.includes("usage: npm run --silent render"), io.stderr);
        }
    });
});
