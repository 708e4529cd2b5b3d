/**
 * The fleet program under Pulumi's mocks, on the committed example fleet: what it would ask the
 * cluster for, as a reviewer reads it in a preview. The operator at its pinned chart version,
 * and per environment a ServiceAccount with its bindings and a Stack whose every credential is a
 * reference to a Kubernetes Secret.
 */
import assert from "node:assert/strict";
import * as path from "node:path";
import { before, describe, test } from "node:test";
import type { ProgramRun, RecordedResource } from "../../scripts/lib/mock-engine";
import { withConfig } from "../../scripts/lib/stack-config";
import { effectiveConfig, projectErrors, readProject, type StackValues } from "../support/pulumi-project";
import { ENVIRONMENTS_KEY, environment, exampleConfig, FLEET_ROOT, onPremEnvironment, resource, runFleet } from "./fleet-support";

const STACK = "kubernetes:pulumi.com/v1:Stack";
const RELEASE = "kubernetes:helm.sh/v3:Release";
const SERVICE_ACCOUNT = "kubernetes:core/v1:ServiceAccount";
const BINDING = "kubernetes:rbac.authorization.k8s.io/v1:ClusterRoleBinding";
const NAMESPACE = "kubernetes:core/v1:Namespace";
/** The signature Pulumi's secret envelope carries (sdk/nodejs/runtime/rpc.ts, specialSecretSig). */
const SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270";

const specOf = (run: ProgramRun, name: string) => resource(run, STACK, name).inputs.spec as Record<string, any>;

/** Every object in `value` that has `key`, wherever it is. */
function objectsWith(value: unknown, key: string): Record<string, unknown>[] {
    if (Array.isArray(value)) return value.flatMap((v) => objectsWith(v, key));
    if (value === null || typeof value !== "object") return [];
    const here = key in value ? [value as Record<string, unknown>] : [];
    return [...here, ...Object.values(value).flatMap((v) => objectsWith(v, key))];
}

describe("the fleet program, on the example fleet", () => {
    let run: ProgramRun;
    before(async () => {
        run = await runFleet(exampleConfig());
    });

    test("installs the operator from its own chart at 2.9.0, in its namespace, with the chart's image pinned", () => {
        const release = resource(run, RELEASE, "pulumi-kubernetes-operator");
        assert.equal(release.inputs.chart, "oci://ghcr.io/pulumi/helm-charts/pulumi-kubernetes-operator");
        assert.equal(release.inputs.version, "2.9.0");
        assert.equal(release.inputs.name, "pulumi-kubernetes-operator");
        assert.equal(release.inputs.namespace, "pulumi-kubernetes-operator");
        assert.equal(release.inputs.createNamespace, false);
        assert.deepEqual(release.inputs.values, {
            image: { registry: "docker.io", repository: "pulumi/pulumi-kubernetes-operator", tag: "v2.9.0" },
        });
        assert.equal(resource(run, "nvcf:fleet:Operator", "pulumi-kubernetes-operator").urn, release.parent);
    });

    test("creates the operator's namespace, and none for the environments, whose Secrets are there before them", () => {
        const names = run.resources.filter((r) => r.type === NAMESPACE).map((r) => (r.inputs.metadata as { name: string }).name);
        assert.deepEqual(names, ["pulumi-kubernetes-operator"]);
    });

    test("declares one Stack per environment, named after it, in its namespace", () => {
        const stacks = run.resources.filter((r) => r.type === STACK);
        assert.deepEqual(
            stacks.map((s) => [s.inputs.apiVersion, s.inputs.kind, s.inputs.metadata]),
            ["dev", "staging", "prod"].map((name) => ["pulumi.com/v1", "Stack", { name, namespace: "nvcf-fleet" }]),
        );
    });

    test("runs each environment's stack from the repository at its pinned commit or tag, with its backend and key manager", () => {
        const dev = specOf(run, "dev");
        assert.equal(dev.stack, "dev");
        assert.equal(dev.projectRepo, "https://github.com/example-org/nvcf-self-managed.git");
        assert.equal(dev.commit, "3f2c1b0a9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b");
        assert.equal(dev.branch, undefined);
        assert.equal(dev.backend, "s3://example-nvcf-state/fleet");
        assert.equal(dev.secretsProvider, "awskms://alias/nvcf-state?region=us-west-2");
        assert.equal(dev.serviceAccountName, "dev");
        assert.equal(specOf(run, "prod").commit, "v1.4.0");
    });

    test("gives every credential as a reference to a Secret by name and key, never a value", () => {
        assert.deepEqual(specOf(run, "dev").gitAuth, { accessToken: { type: "Secret", secret: { name: "nvcf-fleet-git", key: "token" } } });
        assert.deepEqual(specOf(run, "prod").secretsRef, {
            ngcApiKey: { type: "Secret", secret: { name: "nvcf-prod", key: "ngcApiKey" } },
            kubeconfig: { type: "Secret", secret: { name: "nvcf-prod", key: "kubeconfig" } },
        });
        for (const r of run.resources) {
            // Every ResourceRef anywhere is of type Secret: no Literal, Env or FS, and no value field.
            for (const ref of objectsWith(r.inputs, "type").filter((o) => "secret" in o || "literal" in o)) {
                assert.equal(ref.type, "Secret", `${r.type} ${r.name}: ${JSON.stringify(ref)}`);
                assert.deepEqual(Object.keys(ref.secret as object).sort(), ["key", "name"]);
            }
            assert.deepEqual(objectsWith(r.inputs, "literal"), [], `${r.type} ${r.name}`);
            // The deprecated inline fields the operator still reads are never set.
            for (const field of ["secrets", "accessTokenSecret", "envSecrets", "gitAuthSecret", "config"]) {
                assert.equal((r.inputs.spec as Record<string, unknown> | undefined)?.[field], undefined, `${r.name}: ${field}`);
            }
            // Nothing to keep secret: no input is a Pulumi secret, because none holds one.
            assert.ok(!JSON.stringify(r.rawInputs).includes(SECRET_SIG), `${r.type} ${r.name}`);
        }
    });

    test("gives each workspace a pinned Node.js image and CPU, memory and ephemeral-storage requests", () => {
        assert.deepEqual(specOf(run, "dev").workspaceTemplate, {
            spec: {
                image: "pulumi/pulumi:3.276.0-nonroot",
                resources: { requests: { cpu: "1", memory: "2Gi", "ephemeral-storage": "4Gi" } },
            },
        });
    });

    test("leaves environments in place when a Stack object is deleted, and does not refresh or retry conflicts unless asked", () => {
        for (const name of ["dev", "staging", "prod"]) {
            const spec = specOf(run, name);
            assert.deepEqual([spec.destroyOnFinalize, spec.refresh, spec.retryOnUpdateConflict], [false, false, false], name);
            assert.equal(spec.runProgram, undefined, name);
            assert.equal(spec.resyncFrequencySeconds, undefined);
        }
    });

    test("promotes in order: staging after dev, prod after staging succeeded within a week", () => {
        assert.equal(specOf(run, "dev").prerequisites, undefined);
        assert.deepEqual(specOf(run, "staging").prerequisites, [{ name: "dev" }]);
        assert.deepEqual(specOf(run, "prod").prerequisites, [{ name: "staging", requirement: { succeededWithinDuration: "168h" } }]);
    });

    test("runs each workspace as its own ServiceAccount, bound to system:auth-delegator; cluster-admin only where asked", () => {
        const account = resource(run, SERVICE_ACCOUNT, "dev");
        assert.deepEqual(account.inputs.metadata, {
            name: "dev",
            namespace: "nvcf-fleet",
            annotations: { "eks.amazonaws.com/role-arn": "arn:aws:iam::123456789012:role/nvcf-fleet-dev" },
        });
        const binding = resource(run, BINDING, "dev-auth-delegator");
        assert.deepEqual(binding.inputs.metadata, { name: "nvcf-fleet:dev:system:auth-delegator" });
        assert.deepEqual(binding.inputs.roleRef, {
            apiGroup: "rbac.authorization.k8s.io",
            kind: "ClusterRole",
            name: "system:auth-delegator",
        });
        assert.deepEqual(binding.inputs.subjects, [{ kind: "ServiceAccount", name: "dev", namespace: "nvcf-fleet" }]);
        assert.equal((resource(run, BINDING, "dev-cluster-admin").inputs.roleRef as { name: string }).name, "cluster-admin");
        const admins = run.resources.filter((r) => r.type === BINDING && (r.inputs.roleRef as { name: string }).name === "cluster-admin");
        assert.deepEqual(
            admins.map((r) => r.name),
            ["dev-cluster-admin"],
        );
    });

    test("creates each Stack only after the operator's release (its CRD), the ServiceAccount and its bindings", () => {
        const release = resource(run, RELEASE, "pulumi-kubernetes-operator").urn;
        for (const name of ["dev", "staging", "prod"]) {
            const stack: RecordedResource = resource(run, STACK, name);
            const needs = [release, resource(run, SERVICE_ACCOUNT, name).urn, resource(run, BINDING, `${name}-auth-delegator`).urn];
            for (const urn of needs) assert.ok(stack.dependencies.includes(urn), `${name} waits for ${urn}`);
            assert.equal(resource(run, "nvcf:fleet:Environment", name).urn, stack.parent);
        }
    });

    test("exports where each environment's Stack is, for a later `status`", () => {
        assert.deepEqual(run.outputs.environments, {
            dev: { namespace: "nvcf-fleet", serviceAccount: "dev" },
            staging: { namespace: "nvcf-fleet", serviceAccount: "staging" },
            prod: { namespace: "nvcf-fleet", serviceAccount: "prod" },
        });
    });
});

describe("the fleet program, varied", () => {
    test("an existing namespace is used, not created; destroyOnFinalize and the rest pass through when set", async () => {
        const config = withConfig(exampleConfig(), {
            "nvcf-fleet:operator": { namespace: "platform", createNamespace: false },
            [ENVIRONMENTS_KEY]: undefined,
        });
        config[ENVIRONMENTS_KEY] = {
            lab: environment({
                stack: "organization/nvcf-self-managed/lab",
                namespace: "platform",
                createNamespace: false,
                destroyOnFinalize: true,
                refresh: true,
                retryOnUpdateConflict: true,
                resyncFrequencySeconds: 600,
                workspace: { requests: { memory: "6Gi" } },
                source: { flux: { apiVersion: "source.toolkit.fluxcd.io/v1", kind: "GitRepository", name: "nvcf", dir: "." } },
            }),
        };
        const run = await runFleet(config);
        assert.deepEqual(
            run.resources.filter((r) => r.type === NAMESPACE),
            [],
        );
        assert.equal(resource(run, RELEASE, "pulumi-kubernetes-operator").inputs.namespace, "platform");
        const spec = specOf(run, "lab");
        assert.equal(spec.stack, "organization/nvcf-self-managed/lab");
        assert.deepEqual(spec.fluxSource, {
            sourceRef: { apiVersion: "source.toolkit.fluxcd.io/v1", kind: "GitRepository", name: "nvcf" },
            dir: ".",
        });
        assert.equal(spec.projectRepo, undefined);
        assert.deepEqual(
            [spec.destroyOnFinalize, spec.refresh, spec.retryOnUpdateConflict, spec.resyncFrequencySeconds],
            [true, true, true, 600],
        );
        // The destroy runs in the git workspace with the program's dependencies, not from the project name alone.
        assert.equal(spec.runProgram, true);
        assert.deepEqual(spec.workspaceTemplate.spec.resources.requests, { cpu: "1", memory: "6Gi", "ephemeral-storage": "4Gi" });
        assert.deepEqual(resource(run, STACK, "lab").inputs.metadata, { name: "lab", namespace: "platform" });
    });

    test("a namespace environments ask the fleet to create is created once, and the Stacks wait for it", async () => {
        const config = { ...exampleConfig() };
        config[ENVIRONMENTS_KEY] = {
            dev: environment({ namespace: "nvcf-lab", createNamespace: true }),
            staging: environment({
                stack: "staging",
                namespace: "nvcf-lab",
                createNamespace: true,
                prerequisites: [{ environment: "dev" }],
            }),
        };
        const run = await runFleet(config);
        const created = run.resources.filter((r) => r.type === NAMESPACE && (r.inputs.metadata as { name: string }).name === "nvcf-lab");
        assert.equal(created.length, 1);
        for (const name of ["dev", "staging"]) assert.ok(resource(run, STACK, name).dependencies.includes(created[0].urn), name);
    });

    test("a passphrase and a database password reach the workspace as environment variables from Secrets", async () => {
        const config = { ...exampleConfig() };
        config[ENVIRONMENTS_KEY] = {
            onprem: onPremEnvironment({
                source: {
                    git: {
                        repo: "git@git.example.internal:platform/nvcf.git",
                        commit: "v1.4.0",
                        dir: ".",
                        auth: { sshAuth: { sshPrivateKey: { name: "nvcf-git", key: "id_ed25519" } } },
                    },
                },
            }),
        };
        const spec = specOf(await runFleet(config), "onprem");
        assert.deepEqual(spec.envRefs, {
            PULUMI_CONFIG_PASSPHRASE: { type: "Secret", secret: { name: "nvcf-onprem", key: "passphrase" } },
            PGPASSWORD: { type: "Secret", secret: { name: "nvcf-state-db", key: "password" } },
        });
        assert.equal(spec.secretsProvider, "passphrase");
        assert.equal(spec.repoDir, ".");
        assert.deepEqual(spec.gitAuth, { sshAuth: { sshPrivateKey: { type: "Secret", secret: { name: "nvcf-git", key: "id_ed25519" } } } });
    });
});

describe("fleet/Pulumi.yaml as the Pulumi CLI loads it", () => {
    const project = readProject(path.join(FLEET_ROOT, "Pulumi.yaml"));

    test("the CLI accepts the project file, with the root project's runtime options", () => {
        assert.deepEqual(projectErrors(project), []);
        assert.equal(project.name, "nvcf-fleet");
    });

    test("the example stack has every required key", () => {
        const values: StackValues = {};
        for (const [key, value] of Object.entries(exampleConfig())) values[key] = { value, secure: false };
        assert.equal(effectiveConfig(project, "example", values).error, undefined);
        assert.equal(effectiveConfig(project, "example", {}).error, "Stack 'example' is missing configuration value 'environments'");
    });
});
