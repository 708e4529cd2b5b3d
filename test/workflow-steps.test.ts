/**
 * The pull-request workflow installs before it checks and runs each test once
 * (scripts/workflow/plan.ts reads it as the runner does), and scripts/workflow/main.ts,
 * which .ci/run runs on it, runs `run:` steps as GitHub would and fails where a fresh clone
 * would (shown on a small workflow of its own here: the real one takes minutes).
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { describe, it } from "node:test";
import { planWorkflow } from "../scripts/workflow/plan";
import { TSX_NODE_ARGS } from "../scripts/lib/repo";
import { inBackground, runToEnd, type Finished } from "./support/background";

const ROOT = path.resolve(__dirname, "..");
const PULL_REQUEST = path.join(ROOT, ".github", "workflows", "pull-request.yml");

describe("pull-request.yml", () => {
    const jobs = planWorkflow(fs.readFileSync(PULL_REQUEST, "utf8"));
    const runs = (id: string) => jobs.find((j) => j.id === id)!.steps.flatMap((s) => (s.run === undefined ? [] : [s.run.trim()]));

    it("the test job installs, then lints, checks the format, type-checks and tests, as .ci/run does", () => {
        assert.deepEqual(runs("test"), [
            "npm ci --no-audit --no-fund",
            "npm run lint",
            "npm run format:check",
            "npm run typecheck",
            "npm test",
        ]);
    });

    it("every job installs before its first other npm command", () => {
        for (const job of jobs) {
            const scripts = job.steps.flatMap((s) => (s.run === undefined ? [] : [s.run]));
            const install = scripts.findIndex((run) => /^npm ci\b/.test(run.trim()));
            const firstUse = scripts.findIndex((run) => /\bnpm (run|test)\b/.test(run));
            if (firstUse >= 0) assert.ok(install >= 0 && install < firstUse, `job ${job.id}`);
        }
    });

    it("runs the tests once: one npm test, no separate policy-pack run", () => {
        const all = jobs.flatMap((j) => j.steps.flatMap((s) => (s.run === undefined ? [] : [s.run])));
        assert.equal(all.filter((run) => /\bnpm test\b/.test(run)).length, 1);
        assert.ok(!all.some((run) => /--prefix policies|policies\/test/.test(run)));
    });

    it("the jobs that need the repository's settings are skipped locally, with the reason", () => {
        assert.deepEqual(
            jobs.map((j) => [j.id, j.skip]),
            [
                ["test", undefined],
                ["plan-diff", undefined],
                ["stacks", "reads vars.PULUMI_PREVIEW, which only the repository on GitHub has"],
                ["preview", "needs stacks, which is skipped"],
            ],
        );
    });
});

/**
 * Runs scripts/workflow/main.ts on `workflow`, committed in a fixture repository of its own, in a
 * child process started when this file loads (see support/background.ts).
 */
function workflowRun(workflow: string, args: readonly string[] = []): Promise<Finished> {
    return inBackground(async () => {
        const repo = fs.mkdtempSync(path.join(os.tmpdir(), "nvcf-workflow-test-"));
        const git = async (...args: string[]) => {
            const res = await runToEnd("git", args, { cwd: repo });
            assert.equal(res.code, 0, res.stderr);
        };
        try {
            await git("init", "--quiet");
            fs.writeFileSync(path.join(repo, ".gitignore"), "node_modules\n");
            // For `--import tsx` here only: a clone, like a fresh GitHub runner, has none.
            fs.symlinkSync(path.join(ROOT, "node_modules"), path.join(repo, "node_modules"), "dir");
            await git("add", ".gitignore");
            await git("-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "--quiet", "-m", "init");
            fs.writeFileSync(path.join(repo, "w.yml"), workflow);
            await git("add", "w.yml");
            await git("-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "--quiet", "-m", "w");
            return await runToEnd(
                process.execPath,
                [...TSX_NODE_ARGS, path.join(ROOT, "scripts", "workflow", "main.ts"), ...args, "w.yml"],
                {
                    cwd: repo,
                },
            );
        } finally {
            fs.rmSync(repo, { recursive: true, force: true });
        }
    });
}

describe("scripts/workflow/main.ts", () => {
    // Each run starts here, as the file loads; its test awaits it.
    const stepsAndSkips = workflowRun(`
on: pull_request
jobs:
  a:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v7
      - uses: actions/setup-node@v6
        with: { node-version: 22 }
      - id: first
        run: echo "answer=42" >> "$GITHUB_OUTPUT"
      - name: reads the output and the base
        env:
          ANSWER: \${{ steps.first.outputs.answer }}
          BASE: \${{ github.event.pull_request.base.sha }}
        run: |
          test "$ANSWER" = 42
          git cat-file -e "$BASE"
          echo "FROM_ENV=yes" >> "$GITHUB_ENV"
      - run: test "$FROM_ENV" = yes
      - name: not taken
        if: steps.first.outputs.answer == '41'
        run: exit 1
      - uses: actions/upload-artifact@v7
  b:
    needs: a
    if: vars.ENABLED == 'true'
    runs-on: ubuntu-latest
    steps:
      - run: exit 1
`);
    it("runs the run: steps in order, with outputs, env, if: and skips it explains", async () => {
        const res = await stepsAndSkips;
        assert.equal(res.code, 0, res.stdout + res.stderr);
        assert.match(res.stdout, /a \/ uses: actions\/checkout@v7: done: the job's fresh clone\n/);
        assert.match(res.stdout, /a \/ reads the output and the base: passed/);
        assert.match(res.stdout, /a \/ run: test "\$FROM_ENV" = yes: passed/);
        assert.match(res.stdout, /a \/ not taken: skipped: if: steps\.first\.outputs\.answer == '41' is false\n/);
        assert.match(res.stdout, /a \/ uses: actions\/upload-artifact@v7: skipped: actions\/upload-artifact needs GitHub/);
        assert.match(res.stdout, /b: skipped: reads vars\.ENABLED, which only the repository on GitHub has\n/);
        assert.match(res.stdout, /workflow steps: passed\n$/);
    });

    const nothingInstalled = workflowRun(`
on: pull_request
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v7
      - run: test -d node_modules
      - run: echo never
`);
    it("fails, naming the step, where a fresh clone would: nothing installed", async () => {
        const res = await nothingInstalled;
        assert.equal(res.code, 1);
        assert.match(res.stderr, /^workflow steps: test \/ run: test -d node_modules: failed with exit code 1\n$/);
        assert.doesNotMatch(res.stdout, /never/);
    });

    const alreadyRan = workflowRun(
        `
on: pull_request
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - run: echo installed
      - run: exit 1
`,
        ["--ran", "exit 1"],
    );
    it("skips a run: step the caller already ran on this commit (--ran), and runs the others", async () => {
        const res = await alreadyRan;
        assert.equal(res.code, 0, res.stdout + res.stderr);
        assert.match(res.stdout, /test \/ run: echo installed: passed/);
        assert.match(res.stdout, /test \/ run: exit 1: skipped: ran above on this commit\n/);
    });

    const unknownExpression = workflowRun(`
on: pull_request
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - env:
          WHO: \${{ github.actor }}
        run: echo "$WHO"
`);
    it("stops on an expression it cannot evaluate rather than guess", async () => {
        const res = await unknownExpression;
        assert.equal(res.code, 2);
        assert.match(res.stderr, /cannot evaluate "github\.actor" locally/);
    });
});
