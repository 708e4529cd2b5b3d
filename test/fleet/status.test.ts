/**
 * `npm run fleet -- status`: the formatter on Stack objects shaped as the operator writes them
 * (pulumi/pulumi-kubernetes-operator v2.9.0, operator/api/pulumi/v1/stack_types.go StackStatus and
 * operator/api/pulumi/shared/stack_types.go StackUpdateState / CurrentStackUpdate; reasons set by
 * operator/internal/controller/pulumi/stack_controller.go), and the command end to end against a
 * fake API server; a lock holder as the CLI reports it in a failed update (pulumi/pulumi pkg/backend/diy/lock.go).
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, before, describe, test } from "node:test";
import type { OperatorStack } from "../../lib/contracts/pulumi-operator";
import { fleetCli } from "../../scripts/fleet/cli";
import { fleetExitCode, fleetStatusLines, type EnvironmentStatus } from "../../scripts/fleet/format";
import { FakeKubeApi } from "../support/fake-kube-api";

const COMMIT = "3f2c1b0a9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b";
const NO_LOCK = { reported: false } as const;

function stack(name: string, status: OperatorStack["status"], prerequisites: string[] = []): OperatorStack {
    return {
        apiVersion: "pulumi.com/v1",
        kind: "Stack",
        metadata: { name, namespace: "nvcf-fleet", generation: 2 },
        spec: { stack: name, prerequisites: prerequisites.map((p) => ({ name: p })) },
        status,
    };
}

const succeeded = stack("dev", {
    observedGeneration: 2,
    lastUpdate: {
        generation: 2,
        name: "dev-6f5d2",
        type: "up",
        state: "succeeded",
        message: "Update complete.",
        lastAttemptedCommit: COMMIT,
        lastSuccessfulCommit: COMMIT,
        lastResyncTime: "2026-12-06T10:00:00Z",
    },
    conditions: [{ type: "Ready", status: "True", reason: "ProcessingCompleted", lastTransitionTime: "2026-12-06T10:00:00Z" }],
});

const waiting = stack(
    "staging",
    {
        conditions: [
            { type: "Ready", status: "False", reason: "NotReadyInProgress" },
            {
                type: "Reconciling",
                status: "True",
                reason: "PrerequisiteNotSatisfied",
                message: 'prerequisite not satisfied for "dev": prerequisite failed',
            },
        ],
    },
    ["dev"],
);

// Condition messages as markStackResult writes them (operator/internal/controller/pulumi/stack_controller.go, v2.9.0).
const stalled = stack("prod", {
    lastUpdate: {
        name: "prod-1a2b3",
        type: "up",
        state: "failed",
        message:
            "error: the stack is currently locked by 1 lock(s). Either wait for the other process(es) to end or delete the lock file with `pulumi cancel`.\n" +
            "  s3://state/fleet/.pulumi/locks/organization/nvcf-self-managed/prod/0b8e2f5c.json: created by pulumi@prod-workspace-0 (pid 41) at 2026-12-06T10:59:00Z",
        lastAttemptedCommit: COMMIT,
        lastResyncTime: "2026-12-06T11:00:00Z",
        failures: 3,
    },
    conditions: [
        { type: "Ready", status: "False", reason: "NotReadyStalled" },
        {
            type: "Stalled",
            status: "True",
            reason: "UpdateFailed",
            message: "up failed 3 times; not retrying until the spec or source changes",
        },
    ],
});

const running = stack("qa", {
    currentUpdate: { generation: 3, name: "qa-9z8y7", commit: COMMIT },
    conditions: [
        { type: "Ready", status: "False", reason: "NotReadyInProgress" },
        { type: "Reconciling", status: "True", reason: "StackProcessing", message: "stack is being processed" },
    ],
});

describe("fleetStatusLines: what a user reads per environment", () => {
    test("succeeded, waiting on a prerequisite, stalled, running, never run, missing", () => {
        const envs: EnvironmentStatus[] = [
            { name: "dev", namespace: "nvcf-fleet", stack: succeeded, lock: NO_LOCK },
            { name: "staging", namespace: "nvcf-fleet", stack: waiting, lock: NO_LOCK },
            { name: "prod", namespace: "nvcf-fleet", stack: stalled, lock: NO_LOCK },
            { name: "qa", namespace: "nvcf-fleet", stack: running, lock: NO_LOCK },
            { name: "new", namespace: "nvcf-fleet", stack: stack("new", undefined), lock: NO_LOCK },
            { name: "gone", namespace: "nvcf-fleet", stack: undefined, lock: NO_LOCK },
        ];
        const text = fleetStatusLines(envs).join("\n");
        assert.match(
            text,
            /^dev {2}succeeded\n {2}commit {3}3f2c1b0a9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b\n {2}time {5}2026-12-06T10:00:00Z\n {2}message {2}Update complete\.\n {2}lock {5}none reported$/m,
        );
        assert.match(text, /^staging {2}waiting on dev$/m);
        assert.match(text, /^prod {2}stalled \(UpdateFailed\)$/m);
        assert.match(text, /message {2}up failed 3 times; not retrying until the spec or source changes/);
        assert.match(text, /^qa {2}running$/m);
        assert.match(text, /^new {2}never run$/m);
        assert.match(text, /^gone {2}no Stack nvcf-fleet\/gone in the cluster/m);
        assert.equal(fleetExitCode(envs), 1);
        assert.equal(fleetExitCode(envs.slice(0, 2)), 0);
    });

    test("a failed update's message is cut to one line", () => {
        const failed = stack("prod", { ...stalled.status, conditions: [] });
        const [, , , message] = fleetStatusLines([{ name: "prod", namespace: "nvcf-fleet", stack: failed, lock: NO_LOCK }]);
        assert.equal(
            message,
            "  message  error: the stack is currently locked by 1 lock(s). Either wait for the other process(es) to end or delete the lock file with `pulumi cancel`.…",
        );
    });
    test("a failed update the operator retries, and a failed preview", () => {
        const failedWith = (reason: string) =>
            stack("prod", {
                ...stalled.status,
                conditions: [{ type: "Reconciling", status: "True", reason, message: "2 update failure(s)" }],
            });
        const [retrying] = fleetStatusLines([
            { name: "prod", namespace: "nvcf-fleet", stack: failedWith("RetryingAfterFailure"), lock: NO_LOCK },
        ]);
        assert.equal(retrying, "prod  failed, retrying");
        const [preview] = fleetStatusLines([{ name: "prod", namespace: "nvcf-fleet", stack: failedWith("PreviewFailed"), lock: NO_LOCK }]);
        assert.equal(preview, "prod  failed (preview)");
    });
});

describe("npm run fleet -- status, against a fake API server", () => {
    const api = new FakeKubeApi();
    let dir: string;
    before(async () => {
        await api.start();
        dir = fs.mkdtempSync(path.join(os.tmpdir(), "nvcf-fleet-status-"));
        const env = (name: string, extra = "") =>
            [
                `    ${name}:`,
                `      stack: ${name}`,
                "      source:",
                "        git:",
                "          repo: https://github.com/example-org/nvcf-self-managed.git",
                `          commit: ${COMMIT}`,
                "      backend: s3://state/fleet",
                "      secretsProvider: passphrase",
                "      secrets:",
                "        passphrase: { name: nvcf-fleet-passphrase, key: passphrase }",
                extra,
            ].join("\n");
        fs.writeFileSync(
            path.join(dir, "Pulumi.test.yaml"),
            ["config:", "  nvcf-fleet:environments:", env("dev"), env("prod", "      prerequisites:\n        - environment: dev"), ""].join(
                "\n",
            ),
        );
        fs.writeFileSync(path.join(dir, "kubeconfig"), api.kubeconfig());
    });
    after(async () => {
        await api.stop();
        fs.rmSync(dir, { recursive: true, force: true });
    });

    async function run(...argv: string[]) {
        let out = "";
        let err = "";
        const code = await fleetCli(argv, { out: (t) => (out += t), err: (t) => (err += t) }, {});
        return { code, out, err };
    }

    test("no Stack CRD: says the operator is not installed, exit 2", async () => {
        const r = await run("status", "--stack", "test", "--dir", dir, "--kubeconfig", path.join(dir, "kubeconfig"));
        assert.equal(r.code, 2);
        assert.match(r.err, /serves no stacks\.pulumi\.com\/v1: the Pulumi Kubernetes Operator is not installed there/);
    });

    test("each environment's Stack and the lock holder of the file backend", async () => {
        api.put("/apis/pulumi.com/v1", {
            kind: "APIResourceList",
            groupVersion: "pulumi.com/v1",
            resources: [{ name: "stacks", kind: "Stack" }],
        });
        api.put("/apis/pulumi.com/v1/namespaces/nvcf-fleet/stacks/dev", succeeded);
        api.put("/apis/pulumi.com/v1/namespaces/nvcf-fleet/stacks/prod", stalled);
        const r = await run("status", "--stack", "test", "--dir", dir, "--kubeconfig", path.join(dir, "kubeconfig"));
        assert.equal(r.err, "");
        assert.equal(r.code, 1);
        assert.match(r.out, /^dev {2}succeeded$/m);
        assert.match(r.out, /^prod {2}stalled \(UpdateFailed\)$/m);
        assert.match(
            r.out,
            /lock {5}held by pulumi@prod-workspace-0 \(pid 41\) since 2026-12-06T10:59:00Z: s3:\/\/state\/fleet\/\.pulumi\/locks\/organization\/nvcf-self-managed\/prod\/0b8e2f5c\.json/,
        );
        assert.match(r.out, /pulumi cancel --yes --stack <stack>/);
        assert.ok(!/dev[\s\S]*held by[\s\S]*prod {2}/.test(r.out), "dev has no lock");
    });

    test("an unreachable API server: exit 2, what to check", async () => {
        const kc = api.kubeconfig().replace(api.url, "http://127.0.0.1:1");
        fs.writeFileSync(path.join(dir, "kubeconfig-down"), kc);
        const r = await run("status", "--stack", "test", "--dir", dir, "--kubeconfig", path.join(dir, "kubeconfig-down"));
        assert.equal(r.code, 2);
        assert.match(
            r.err,
            /^fleet status: cannot read the fleet's Stacks: .*\(check --kubeconfig and --context, and that the API server answers\)/,
        );
    });

    test("usage: --help, no subcommand, a wrong one", async () => {
        const help = await run("--help");
        assert.equal(help.code, 0);
        assert.match(help.out, /^usage: npm run --silent fleet -- status --stack/);
        const none = await run();
        assert.equal(none.code, 2);
        assert.match(none.err, /^a subcommand is required: status\nusage:/);
        const wrong = await run("stauts");
        assert.equal(wrong.code, 2);
        assert.match(wrong.err, /unknown subcommand "stauts": the only one is status/);
    });
});
