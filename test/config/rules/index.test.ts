import assert from "node:assert/strict";
import { test } from "node:test";
import { assertProblems, devRaw } from "../../support/raw-config";
import { CP, P, plane } from "../support";

// The rules together (config/rules/index.ts): every problem in one error, in the order the rules are listed.

test("every cross-key problem comes at once: control plane, releases, secrets, compute planes", () => {
    const error = assertProblems(
        devRaw({
            controlPlane: { global: { image: { repository: "YOUR_ORG/YOUR_TEAM" } }, stateMetrics: { enabled: false } },
            values: {
                releases: { apis: {} },
                computePlanes: [{ clusterName: "gpu-x" }, plane({ clusterName: "gpu-y", featureGates: ["KAIScheduler"] })],
            },
            secrets: { ngcApiKey: undefined, chartRegistryPassword: "p" },
        }),
        [
            {
                key: `${CP}.global.image.repository`,
                message: "still the bundle's placeholder; set the NGC org/team (or mirror path) that holds the NVCF images",
            },
            {
                key: `${CP}.stateMetrics.enabled`,
                message: "function-autoscaler requires stateMetrics.enabled=true for control and all observability profiles",
            },
            { key: `${P}:releases.apis`, message: "unknown release" },
            {
                key: `${P}:ngcApiKey`,
                message:
                    "is required for the image pull secrets (set it with `pulumi config set --secret ngcApiKey <key>`), " +
                    "or set registry.pullSecret.enabled: false when nodes pull with their own identity",
            },
            { key: `${P}:computePlanes[0].cluster`, message: "says nothing about how to reach the GPU cluster gpu-x" },
            {
                key: `${P}:computePlanes[1].featureGates`,
                message: "the KAIScheduler gate keeps NVCA unhealthy on a cluster without the KAI scheduler",
            },
        ],
    );
    assert.match(error.message, /^Invalid stack configuration:\n {2}- nvcf-self-managed:controlPlane\.global\.image\.repository: /);
    assert.equal(error.message.split("\n").filter((l) => l.startsWith("  - ")).length, 6);
});
