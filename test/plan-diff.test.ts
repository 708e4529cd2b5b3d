/**
 * plan-diff on a throwaway git repository: a clone of this one, with commits that change the
 * dev stack file. Renders run in this process, like the CLI's. A render of another directory
 * loads its program afresh (seconds for the dev stack's): where only the stack file changes, its
 * config is rendered with this repository's program instead (the suite's program runs), and a
 * change of the program itself is shown on a small program of its own.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, before, describe, test } from "node:test";
import { parseDocument } from "yaml";
import { capture } from "./support/capture";
import { diffStacks, PlanDiff } from "../scripts/plan-diff/diff";
import { formatDiffMarkdown } from "../scripts/plan-diff/format-markdown";
import { formatDiffText } from "../scripts/plan-diff/format-text";
import { git } from "../scripts/plan-diff/git-checkout";
import { planDiffCli } from "../scripts/plan-diff/cli";
import { takeReusableDir, type ReusableDir } from "../scripts/lib/reusable-dir";
import { renderStack, toRenderedStack } from "../scripts/lib/render";
import { RenderedResource, RenderedStack } from "../scripts/lib/rendered";
import { formatPath } from "../scripts/plan-diff/value-diff";
import { PROJECT, runProgram, stackConfig } from "./support/harness";

const ROOT = path.resolve(__dirname, "..");
const STACK_FILE = "Pulumi.dev.yaml";
const CP = `${PROJECT}:controlPlane`;
const ANNOTATION = "example.com/owner";

let tmp: string;
let repo: string;
let base: string;
let baseRender: RenderedStack;

function commit(message: string, files: readonly string[]): string {
    git(repo, ["add", "--", ...files]);
    git(repo, ["-c", "user.name=plan-diff test", "-c", "user.email=test@example.invalid", "commit", "--quiet", "-m", message]);
    return git(repo, ["rev-parse", "HEAD"]);
}

/** A commit on top of the base that edits the stack file's config. */
function stackCommit(message: string, edit: (set: (keys: readonly string[], value: unknown) => void) => void): string {
    git(repo, ["checkout", "--quiet", "--detach", base]);
    const file = path.join(repo, STACK_FILE);
    const doc = parseDocument(fs.readFileSync(file, "utf8"));
    edit((keys, value) => doc.setIn(["config", ...keys], value));
    fs.writeFileSync(file, doc.toString());
    return commit(message, [STACK_FILE]);
}

/**
 * The dev stack file as `commit` has it, rendered as renderStack does, with this repository's
 * program: the same code as the clone's when the commits change only the stack file.
 */
async function renderStackFileAt(sha: string): Promise<RenderedStack> {
    git(repo, ["checkout", "--quiet", "--detach", sha]);
    const { config, secretKeys } = stackConfig("dev", repo);
    const run = await runProgram(config, secretKeys, "dev");
    return toRenderedStack(run.resources, { stack: "dev", project: PROJECT });
}

/** Everything the diff holds, by resource name, for exact comparisons. */
function names(diff: PlanDiff) {
    const n = (list: readonly { name: string }[]) => list.map((r) => r.name);
    return { added: n(diff.added), removed: n(diff.removed), replaced: n(diff.replaced), changed: n(diff.changed) };
}

/** Checkouts plan-diff made and left behind in the temp directory. */
function leftoverCheckouts(): string[] {
    return fs.readdirSync(os.tmpdir()).filter((f) => f.startsWith("plan-diff-"));
}

let tmpDir: ReusableDir;

before(() => {
    // The same path each run: the clone's checkouts and the small program below load compiled.
    tmpDir = takeReusableDir("nvcf-plan-diff-test");
    tmp = tmpDir.dir;
    repo = path.join(tmp, "repo");
    git(tmp, ["clone", "--quiet", ROOT, repo]);
    // As the CLI does for its checkout: the program resolves its SDK from this repository's.
    fs.symlinkSync(path.join(ROOT, "node_modules"), path.join(repo, "node_modules"), "dir");
    // The base: an NGC key stored encrypted (as `pulumi config set --secret` leaves it; never
    // decrypted here) and one pod annotation for the change below.
    base = git(repo, ["rev-parse", "HEAD"]);
    base = stackCommit("base", (set) => {
        set([`${PROJECT}:ngcApiKey`], { secure: "v1:bm90LWEtcmVhbC1jaXBoZXJ0ZXh0" });
        set([CP, "api", "podAnnotations", ANNOTATION], "team-a");
    });
});

after(() => tmpDir.release());

describe("plan-diff: what a change to the stack file does", () => {
    before(async () => {
        baseRender = await renderStackFileAt(base);
    });

    test("a changed pod annotation is one changed release with one changed values path", async () => {
        const sha = stackCommit("annotation", (set) => set([CP, "api", "podAnnotations", ANNOTATION], "team-b"));
        const diff = diffStacks("dev", baseRender, await renderStackFileAt(sha));
        assert.deepEqual(names(diff), { added: [], removed: [], replaced: [], changed: ["control-plane-api"] });
        const [api] = diff.changed;
        assert.deepEqual(api.inputs, []);
        assert.deepEqual(api.dependsOnAdded, []);
        assert.deepEqual(api.dependsOnRemoved, []);
        assert.deepEqual(
            api.values.map((c) => [formatPath(c.path), c.before, c.after]),
            [[`api.podAnnotations["${ANNOTATION}"]`, "team-a", "team-b"]],
        );
        // In the text format (the command's default) a changed release is a `~` line; in the
        // markdown of a pull-request comment, a row of the summary and a row of its values.
        const context = { baseRef: base, baseCommit: base };
        assert.match(formatDiffText(diff, context), /\n~ control-plane-api \(kubernetes:helm\.sh\/v3:Release\): /);
        const markdown = formatDiffMarkdown(diff, context);
        assert.match(markdown, /^### Stack `dev`: 0 to add, 0 to remove, 0 to replace, 1 to change\n/);
        assert.ok(
            markdown.includes("| ✏️ change | <code>control-plane-api</code> | <code>kubernetes:helm.sh/v3:Release</code> |"),
            markdown,
        );
        assert.ok(
            markdown.includes(
                `| values <code>api.podAnnotations["${ANNOTATION}"]</code> | <code>"team-a"</code> | <code>"team-b"</code> |`,
            ),
            markdown,
        );
        assert.ok(!markdown.includes("placeholder-for-"), "a secret placeholder reached the output");
    });

    test("a disabled optional release is removed; the releases after it only lose the dependency", async () => {
        const sha = stackCommit("no ingress", (set) => set([CP, "ingress", "gatewayApi", "enabled"], false));
        const diff = diffStacks("dev", baseRender, await renderStackFileAt(sha));
        const ingress = baseRender.resources.find((r) => r.name === "control-plane-ingress")!;
        assert.deepEqual(names(diff).removed, ["control-plane-ingress"]);
        assert.deepEqual([...diff.added, ...diff.replaced], []);
        // Releases of the next helmfile.d file waited for it; nothing else about them changes.
        assert.ok(diff.changed.length > 0, "the releases that waited for ingress");
        // The checks follow the setting: no Gateway to preflight, no routes (nor the ingress's namespace) to gate on, no ingress to smoke-test.
        const checks = diff.changed.filter((c) => /preflight|health-gate|smoke/.test(c.name));
        assert.deepEqual(checks.map((c) => c.name).sort(), ["control-plane-health-gate", "control-plane-preflight", "control-plane-smoke"]);
        assert.deepEqual(
            checks.find((c) => c.name === "control-plane-smoke")!.inputs.map((i) => formatPath(i.path)),
            ["releases"],
        );
        assert.ok(
            checks
                .find((c) => c.name === "control-plane-preflight")!
                .inputs.some((i) => formatPath(i.path).startsWith("preflight.gatewayApi")),
        );
        assert.ok(
            checks.find((c) => c.name === "control-plane-health-gate")!.inputs.some((i) => formatPath(i.path).startsWith("health.routes")),
        );
        // The receipt names every release and its version: it no longer names ingress.
        const receipt = diff.changed.find((c) => c.name === "bundle-receipt")!;
        assert.deepEqual(
            receipt.inputs.map((i) => formatPath(i.path)),
            ["data.controlPlane"],
        );
        assert.ok(!String(receipt.inputs[0].after).includes('"ingress"') && String(receipt.inputs[0].before).includes('"ingress"'));
        for (const c of diff.changed.filter((c) => !checks.includes(c) && c !== receipt)) {
            assert.deepEqual(
                { inputs: c.inputs, values: c.values, added: c.dependsOnAdded, removed: c.dependsOnRemoved },
                {
                    inputs: [],
                    values: [],
                    added: [],
                    removed: [ingress.urn],
                },
                c.name,
            );
        }
    });

    test("a changed release namespace replaces the release", async () => {
        const sha = stackCommit("gateway namespace", (set) =>
            set([CP, "ingress", "gatewayApi", "controllerNamespace"], "envoy-gateway-other"),
        );
        const diff = diffStacks("dev", baseRender, await renderStackFileAt(sha));
        // The health gate checks the workloads of the ingress's new namespace; the smoke check looks for its hooks there.
        assert.deepEqual(names(diff), {
            added: [],
            removed: [],
            replaced: ["control-plane-ingress"],
            changed: ["control-plane-health-gate", "control-plane-smoke"],
        });
        const [ingress] = diff.replaced;
        assert.deepEqual(ingress.replacedBecause, ["namespace"]);
        assert.deepEqual(
            ingress.inputs.map((c) => [formatPath(c.path), c.before, c.after]),
            [["namespace", "envoy-gateway-system", "envoy-gateway-other"]],
        );
    });

    test("each revision runs its own program, even from the same directory", async () => {
        // How a render loads a revision's modules is the same for any program: shown on a small
        // one (two modules) in a repository of its own, which loads in a blink where the dev
        // stack's program takes seconds to load afresh (the command's tests below load it so).
        const small = path.join(tmp, "small-program");
        fs.mkdirSync(small);
        const write = (file: string, lines: readonly string[]) => fs.writeFileSync(path.join(small, file), [...lines, ""].join("\n"));
        const commitHere = (message: string) => {
            git(small, ["add", "--all"]);
            git(small, ["-c", "user.name=plan-diff test", "-c", "user.email=test@example.invalid", "commit", "--quiet", "-m", message]);
        };
        git(small, ["init", "--quiet"]);
        fs.symlinkSync(path.join(ROOT, "node_modules"), path.join(small, "node_modules"), "dir");
        write(".gitignore", ["node_modules"]);
        write("Pulumi.yaml", ["name: small", "runtime: nodejs"]);
        write("Pulumi.dev.yaml", ["config: {}"]);
        write("names.ts", ['export const NAME = "thing";']);
        write("index.ts", [
            'import * as pulumi from "@pulumi/pulumi";',
            'import { NAME } from "./names";',
            "export = function main() {",
            '    new pulumi.ComponentResource("test:index:Thing", NAME);',
            "};",
        ]);
        commitHere("base");
        const baseHere = await renderStack({ root: small, stack: "dev" });
        // This revision's index.ts wraps the program and declares one more component. Were a
        // program's modules kept in the cache, the revision would run the base's code instead.
        git(small, ["mv", "index.ts", "program.ts"]);
        write("index.ts", [
            'import * as pulumi from "@pulumi/pulumi";',
            'import program = require("./program");',
            "export = function main() {",
            '    new pulumi.ComponentResource("test:index:Marker", "revision-marker");',
            "    return program();",
            "};",
        ]);
        commitHere("marker");
        // The base was rendered from this same directory first: its index.ts must not be reused.
        const diff = diffStacks("dev", baseHere, await renderStack({ root: small, stack: "dev" }));
        assert.deepEqual(names(diff), { added: ["revision-marker"], removed: [], replaced: [], changed: [] });
        assert.deepEqual(
            baseHere.resources.map((r) => r.name),
            ["thing"],
        );
    });
});

describe("plan-diff: the command", () => {
    test("a change: exit 1 and a markdown comment; the checkout is gone, also from the module cache", async () => {
        // The change is the stack file's removal: the base renders in a checkout (loading its
        // program there), the working tree has nothing to render. How a changed release reads
        // in the comment is the annotation test's, above, on the same formatter.
        const leftBefore = leftoverCheckouts();
        git(repo, ["checkout", "--quiet", "--detach", base]);
        fs.rmSync(path.join(repo, STACK_FILE));
        const io = capture();
        try {
            const code = await planDiffCli(["--stack", "dev", "--base", base, "--format", "markdown", "--dir", repo], io);
            assert.equal(code, 1, io.stderr);
        } finally {
            git(repo, ["checkout", "--quiet", "--", STACK_FILE]);
        }
        assert.match(io.stdout, /^### Stack `dev`: 0 to add, \d+ to remove, 0 to replace, 0 to change\n/);
        assert.ok(
            io.stdout.includes("| ➖ remove | <code>control-plane-api</code> | <code>kubernetes:helm.sh/v3:Release</code> |"),
            io.stdout,
        );
        assert.ok(!io.stdout.includes("placeholder-for-"), "a secret placeholder reached the output");

        assert.equal(
            git(repo, ["worktree", "list", "--porcelain"])
                .split("\n")
                .filter((l) => l.startsWith("worktree ")).length,
            1,
        );
        assert.deepEqual(leftoverCheckouts(), leftBefore);
        const tmpdir = fs.realpathSync(os.tmpdir());
        const cached = Object.keys(require.cache).filter((f) => f.startsWith(path.join(tmpdir, "plan-diff-")));
        assert.deepEqual(cached, []);
    });

    // No change (exit 0, "No changes.") is cli.test.ts's, on the real command.

    test("errors: exit 2 with the reason, and the checkout is removed", async () => {
        const unknown = capture();
        assert.equal(await planDiffCli(["--stack", "dev", "--base", "no-such-ref", "--dir", repo], unknown), 2);
        assert.match(unknown.stderr, /unknown git revision "no-such-ref"/);

        const usage = capture();
        assert.equal(await planDiffCli(["--stack", "dev", "--dir", repo], usage), 2);
        assert.match(usage.stderr, /--base is required\nusage: /);

        const noRepo = capture();
        assert.equal(await planDiffCli(["--stack", "dev", "--base", "HEAD", "--dir", tmp], noRepo), 2);
        assert.match(noRepo.stderr, /not a git repository/);

        const noStack = capture();
        assert.equal(await planDiffCli(["--stack", "nope", "--base", base, "--dir", repo], noStack), 2);
        assert.equal(noStack.stderr, `no stack file Pulumi.nope.yaml in the working tree or at ${base}\n`);

        // A base the program rejects fails inside the checkout: it must be cleaned up all the same.
        const leftBefore = leftoverCheckouts();
        const bad = stackCommit("bad", (set) => set([CP, "nats", "workerAuth"], "jwt"));
        git(repo, ["checkout", "--quiet", "--detach", base]);
        const io = capture();
        assert.equal(await planDiffCli(["--stack", "dev", "--base", bad, "--dir", repo], io), 2);
        assert.ok(io.stderr.startsWith(`stack dev at ${bad}: Invalid stack configuration:\n`), io.stderr);
        assert.ok(io.stderr.includes(`${CP}.nats.workerAuth: nats.workerAuth must be nkey or token`), io.stderr);
        assert.equal(io.stdout, "");
        assert.deepEqual(leftoverCheckouts(), leftBefore);
    });
});

describe("plan-diff: which changes replace", () => {
    const P1 = "urn:pulumi:dev::p::pulumi:providers:kubernetes::one";
    const P2 = "urn:pulumi:dev::p::pulumi:providers:kubernetes::two";
    const res = (name: string, type: string, inputs: Record<string, unknown>, provider: string | null = P1): RenderedResource => ({
        urn: `urn:pulumi:dev::p::${type}::${name}`,
        type,
        name,
        parent: null,
        provider,
        dependsOn: [],
        inputs,
    });
    const stack = (...resources: RenderedResource[]): RenderedStack => ({
        stack: "dev",
        project: "p",
        resources: [...resources].sort((a, b) => (a.urn < b.urn ? -1 : 1)),
    });
    const secret = (name: string, inputs: Record<string, unknown>, provider?: string) =>
        res(name, "kubernetes:core/v1:Secret", { metadata: { name: "s", namespace: "a" }, type: "Opaque", ...inputs }, provider);

    test("a Kubernetes object's name, namespace or a Secret's type replace it; its data does not", () => {
        const base = stack(secret("a", {}), secret("b", {}), secret("c", {}), secret("d", {}));
        const head = stack(
            secret("a", { metadata: { name: "s", namespace: "b" } }),
            secret("b", { metadata: { name: "t", namespace: "a" } }),
            secret("c", { type: "kubernetes.io/dockerconfigjson" }),
            secret("d", { stringData: { k: "v" } }),
        );
        const diff = diffStacks("dev", base, head);
        assert.deepEqual(
            diff.replaced.map((c) => [c.name, c.replacedBecause]),
            [
                ["a", ["metadata.namespace"]],
                ["b", ["metadata.name"]],
                ["c", ["type"]],
            ],
        );
        assert.deepEqual(
            diff.changed.map((c) => c.name),
            ["d"],
        );
    });

    test("another provider replaces; a replaced provider replaces what it manages", () => {
        const provider = (name: string, clusterIdentifier: string) => res(name, "pulumi:providers:kubernetes", { clusterIdentifier }, null);
        const base = stack(provider("one", "dev"), provider("two", "dev"), secret("a", {}), secret("b", {}, P2));
        const head = stack(provider("one", "dev"), provider("two", "other"), secret("a", {}, P2), secret("b", {}, P2));
        const diff = diffStacks("dev", base, head);
        assert.deepEqual(
            diff.replaced.map((c) => [c.name, c.replacedBecause]),
            [
                ["a", ["provider", "its provider is replaced"]],
                ["b", ["its provider is replaced"]],
                ["two", ["clusterIdentifier"]],
            ],
        );
        assert.deepEqual(diff.changed, []);
    });

    test("any change to a random resource replaces it (a new password); a grown list is one change", () => {
        const base = stack(res("pw", "random:index/randomPassword:RandomPassword", { length: 32 }), secret("a", { list: [1, 2] }));
        const head = stack(res("pw", "random:index/randomPassword:RandomPassword", { length: 40 }), secret("a", { list: [1, 2, 3] }));
        const diff = diffStacks("dev", base, head);
        assert.deepEqual(
            diff.replaced.map((c) => [c.name, c.replacedBecause]),
            [["pw", ["length"]]],
        );
        assert.deepEqual(diff.changed[0].inputs, [{ path: ["list"], kind: "changed", before: [1, 2], after: [1, 2, 3] }]);
    });
});

describe("plan-diff: what a reviewer reads", () => {
    const DYNAMIC = "pulumi-nodejs:dynamic/nvcf:HealthGate";
    const urn = (type: string, name: string) => `urn:pulumi:dev::p::${type}::${name}`;
    const res = (name: string, over: Partial<RenderedResource> = {}): RenderedResource => ({
        urn: urn(over.type ?? "kubernetes:core/v1:ConfigMap", name),
        type: "kubernetes:core/v1:ConfigMap",
        name,
        parent: null,
        provider: null,
        dependsOn: [],
        inputs: {},
        ...over,
    });
    const stack = (...resources: RenderedResource[]): RenderedStack => ({ stack: "dev", project: "p", resources });
    const context = { baseRef: "main", baseCommit: "0123456789abcdef" };

    test("a change to a dynamic resource's code alone is one line naming the resource, with no hashes", () => {
        const gate = (code: string, extra: Record<string, unknown> = {}) =>
            res("gate", { type: DYNAMIC, inputs: { __provider: `[provider code, sha256 ${code}]`, timeout: 60, ...extra } });
        const diff = diffStacks("dev", stack(gate("aaaa"), res("other")), stack(gate("bbbb"), res("other")));
        assert.deepEqual(names(diff), { added: [], removed: [], replaced: [], changed: ["gate"] });
        assert.deepEqual(diff.changed[0].inputs, []);
        const text = formatDiffText(diff, context);
        assert.ok(text.includes(`\n~ gate (${DYNAMIC}): its provider code changed\n`), text);
        assert.doesNotMatch(text, /sha256|__provider/);
        const markdown = formatDiffMarkdown(diff, context);
        assert.ok(markdown.includes("✏️ <code>gate</code>: its provider code changed"), markdown);
        assert.doesNotMatch(markdown, /sha256|__provider/);
        // With an input changed too, the code is one line among the input's.
        const both = formatDiffText(diffStacks("dev", stack(gate("aaaa")), stack(gate("bbbb", { timeout: 90 }))), context);
        assert.ok(both.includes(`~ gate (${DYNAMIC})\n    its provider code changed\n    timeout: 60 -> 90\n`), both);
    });

    test("the diagram: the changed resources, what waits on them through components, arrows no other path implies", () => {
        // a <- b <- c, and d waits on the component that holds c; e waits on nothing changed.
        const a = res("a", { inputs: { v: 1 } });
        const component = res("comp", { type: "nvcf:x:Comp" });
        const b = res("b", { dependsOn: [a.urn] });
        const c = res("c", { dependsOn: [a.urn, b.urn], parent: component.urn });
        const d = res("d", { dependsOn: [component.urn] });
        const e = res("e");
        const head = stack({ ...a, inputs: { v: 2 } }, b, component, c, d, e);
        const diff = diffStacks("dev", stack(a, b, component, c, d, e), head);
        const markdown = formatDiffMarkdown(diff, context, { head, violations: [] });
        const mermaid = /```mermaid\n([^`]*)```/.exec(markdown)?.[1] ?? "";
        const id = (name: string) => /(n\d+)\["(.*?)"\]/g.exec(mermaid.split("\n").find((l) => l.includes(`["${name}"]`)) ?? "")?.[1];
        assert.ok(id("a") && mermaid.includes(`${id("a")}["a"]:::change`), mermaid);
        assert.deepEqual(
            ["b", "c", "d"].map((n) => id(n) !== undefined),
            [true, true, true],
            mermaid,
        );
        assert.equal(id("e"), undefined, "e waits on nothing that changed");
        const arrows = mermaid
            .split("\n")
            .filter((l) => l.includes("-->"))
            .map((l) => l.trim());
        assert.deepEqual(arrows.sort(), [`${id("a")} --> ${id("b")}`, `${id("b")} --> ${id("c")}`, `${id("c")} --> ${id("d")}`].sort());
        assert.match(markdown, /What waits on the changes: 3 resource\(s\)/);
    });

    test("the diagram keeps to its size and counts the rest", () => {
        const root = res("root", { inputs: { v: 1 } });
        const waiters = Array.from({ length: 40 }, (_, i) => res(`w${String(i).padStart(2, "0")}`, { dependsOn: [root.urn] }));
        const head = stack({ ...root, inputs: { v: 2 } }, ...waiters);
        const markdown = formatDiffMarkdown(diffStacks("dev", stack(root, ...waiters), head), context, { head, violations: [] });
        const nodes = markdown.split("\n").filter((l) => /^ {2}n\d+\["/.test(l));
        assert.equal(nodes.length, 30);
        assert.ok(markdown.includes('more["… 11 more waiting"]'), markdown);
        assert.match(markdown, /What waits on the changes: 40 resource\(s\)/);
    });

    test("the policy pack's result: a pass, and a mandatory violation that would stop pulumi up", () => {
        const none = diffStacks("dev", stack(res("a")), stack(res("a")));
        assert.ok(
            formatDiffMarkdown(none, context, { head: null, violations: [] }).includes(
                "✅ **Policy pack** on this revision: no violations",
            ),
        );
        assert.ok(
            formatDiffText(none, context, { violations: [] }).endsWith("No changes.\nPolicy pack on the working tree: no violations\n"),
        );
        const violations = [
            { policy: "no-latest-image-tag", level: "advisory" as const, message: "image x:latest" },
            { policy: "helm-release-timeout", level: "mandatory" as const, message: "release api | waits 10 s" },
        ];
        const markdown = formatDiffMarkdown(none, context, { head: null, violations });
        assert.ok(
            markdown.includes(
                "❌ **Policy pack** on this revision: 1 mandatory, 1 advisory: `pulumi preview --policy-pack policies` and `pulumi up` would stop\n" +
                    "- [mandatory] helm-release-timeout: release api &#124; waits 10 s\n" +
                    "- [advisory] no-latest-image-tag: image x:latest\n",
            ),
            markdown,
        );
        assert.ok(formatDiffText(none, context, { violations }).includes("  [mandatory] helm-release-timeout: release api | waits 10 s\n"));
    });

    test("the program's dynamic providers serialise as strict code, as the project's tsconfig compiles them for pulumi preview", async () => {
        // Compiled without the project's tsconfig (a checkout outside its scope), every function
        // carries its own `arguments` and `caller` into the serialised code, and every dynamic
        // resource would show as changed against a render compiled with it.
        const { config, secretKeys } = stackConfig("dev");
        const run = await runProgram({ ...config, [`${PROJECT}:ngcApiKey`]: "k" }, [...secretKeys, `${PROJECT}:ngcApiKey`], "dev");
        const dynamic = run.resources.filter((r) => r.type.startsWith("pulumi-nodejs:dynamic/"));
        assert.ok(dynamic.length >= 8, `${dynamic.length} dynamic resources`);
        for (const r of dynamic) assert.doesNotMatch(String(r.inputs.__provider), /"(arguments|caller)"/, r.name);
    });
});
