/**
 * The deploy workflow never cuts a `pulumi up` short: a killed run is what leaves a stack locked
 * with Helm releases its state does not record (docs/operations.md, When a run was interrupted).
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import { parse } from "yaml";
import { addonDependencies, ADDONS } from "../components/catalog/compute-plane-addons";
import { CATALOG } from "../components/catalog/control-plane";
import { longestChain, releaseDependencies } from "../components/control-plane/ordering";
import { HELM_DEFAULTS } from "../components/kubernetes/helm-release";
import { checksSchema } from "../config/model/checks-schema";

const WORKFLOW = path.resolve(__dirname, "..", ".github", "workflows", "deploy.yml");

describe("deploy.yml", () => {
    const workflow = parse(fs.readFileSync(WORKFLOW, "utf8")) as { jobs: Record<string, any> };
    const deploy = workflow.jobs.deploy;

    it("runs one job per stack at a time, and a newer run waits instead of cancelling it", () => {
        assert.deepEqual(deploy.concurrency, { group: "deploy-${{ matrix.stack }}", "cancel-in-progress": false });
    });

    it("gives the job more time than the longest chain of Helm release timeouts and the health gates, within GitHub's 6 h", () => {
        // A bound from above: Kyverno and Envoy Gateway counted before the longest control-plane chain,
        // and the NVCA operator after it (it waits for less: the registration's path and the add-ons).
        const releases =
            Math.max(2 + longestChain(releaseDependencies(CATALOG)).length, longestChain(addonDependencies(ADDONS)).length) + 1;
        const gates = 2 * checksSchema.parse({}).healthGate.timeoutSeconds;
        const needed = (releases * HELM_DEFAULTS.timeout + gates) / 60;
        assert.ok(deploy["timeout-minutes"] > needed, `timeout-minutes ${deploy["timeout-minutes"]} ≤ ${needed}`);
        assert.ok(deploy["timeout-minutes"] <= 360);
    });

    it("can recover an interrupted run first, then deploys with the policy pack", () => {
        const steps = deploy.steps as { name?: string; run?: string; uses?: string; with?: Record<string, string> }[];
        const recover = steps.findIndex((s) => s.run?.includes("npm run --silent recover -- --stack"));
        const up = steps.findIndex((s) => s.with?.command === "up");
        assert.ok(recover > 0 && up > recover, "recover runs before up");
        assert.match(steps[up].with!.policyPacks, /policies/);
    });
});
