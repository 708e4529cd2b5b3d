import assert from "node:assert/strict";
import { before, describe, test } from "node:test";
import { devConfig, isSecretAt, ProgramRun, RecordedResource, release, runProgram, valuesOf, withConfig } from "./support/harness";
import { runDev } from "./support/runs";
import { OPENBAO_REACH } from "./support/openbao-reach";

// Where the program puts OpenBao's rollout and the JWT plugin lifecycle, under the mocks.

const ROLLOUT = "pulumi-nodejs:dynamic/nvcf:OpenBaoRollout";
const BASELINE = "pulumi-nodejs:dynamic/nvcf:OpenBaoJwtBaseline";
const byType = (run: ProgramRun, type: string) => run.resources.filter((r) => r.type === type);
const byName = (run: ProgramRun, name: string) => run.resources.find((r) => r.name === name)!;
const dependsOn = (a: RecordedResource, b: RecordedResource) => a.dependencies.includes(b.urn);

let dev: ProgramRun;
let bridge: ProgramRun;
const warnings: string[] = [];
before(async () => {
    dev = await runDev();
    const { config, secretKeys } = devConfig();
    // Under the mocks there is no engine to log to: the SDK writes warnings to the console.
    const warn = console.warn;
    console.warn = (...args: unknown[]) => warnings.push(args.join(" "));
    bridge = await runProgram(
        withConfig(config, {
            "nvcf-self-managed:controlPlane": {
                openbao: { jwtPluginLifecycle: { mode: "bridge" }, server: { annotations: { "example.com/revision": "2" } } },
            },
            "nvcf-self-managed:openbaoRollout": { enabled: false, memberTimeoutSeconds: 120 },
            "nvcf-self-managed:openbaoToken": "s.config-token",
        }),
        [...secretKeys, "nvcf-self-managed:openbaoToken"],
    ).finally(() => (console.warn = warn));
});

describe("OpenBao's rollout in the program", () => {
    test("after the openbao-server release and before the health gate; what its pods are made of is its input", () => {
        const [rollout] = byType(dev, ROLLOUT);
        assert.equal(rollout.name, "control-plane-openbao-rollout");
        assert.ok(dependsOn(rollout, release(dev, "openbao-server")));
        assert.ok(dependsOn(byName(dev, "control-plane-health-gate"), rollout), "the gate checks after the rollout");
        const { __provider: _code, ...inputs } = rollout.inputs as Record<string, unknown>;
        assert.deepEqual(inputs, {
            ...OPENBAO_REACH,
            podTemplate: {
                chart: "helm-nvcf-openbao-server",
                version: "0.30.25",
                server: valuesOf(dev, "openbao-server").openbao.server,
                global: valuesOf(dev, "openbao-server").openbao.global,
            },
            enabled: true,
            memberTimeoutSeconds: 600,
            pollSeconds: 5,
        });
        assert.deepEqual(byType(dev, BASELINE), [], "no JWT baseline without the plugin lifecycle");
        assert.equal(valuesOf(dev, "openbao-server").openbao.jwtPluginLifecycle, undefined);
    });

    test("an annotation change is a change of the rollout's input (the plan shows it); the settings reach it", () => {
        const [rollout] = byType(bridge, ROLLOUT);
        const inputs = rollout.inputs as Record<string, any>;
        assert.deepEqual(inputs.podTemplate.server.annotations, { "example.com/revision": "2" });
        assert.equal(inputs.enabled, false);
        assert.equal(inputs.memberTimeoutSeconds, 120);
        assert.equal(inputs.tokenSource, "config");
        assert.ok(!JSON.stringify(rollout.rawInputs).includes("s.config-token"), "the token is never an input");
        assert.ok(
            warnings.some((w) =>
                /openbaoRollout\.enabled is false: after a change to OpenBao's pod template its members keep running the old one/.test(w),
            ),
            "preview and up warn that the rollout is off",
        );
    });

    test("bridge mode: not passed to the chart (no template reads it); the JWT baseline before the release, after preflight; the rollout checks against it", () => {
        assert.equal(valuesOf(bridge, "openbao-server").openbao.jwtPluginLifecycle, undefined);
        const [baseline] = byType(bridge, BASELINE);
        assert.equal(baseline.name, "control-plane-openbao-jwt-baseline");
        assert.equal((baseline.inputs as Record<string, unknown>).mode, "bridge");
        assert.ok(dependsOn(release(bridge, "openbao-server"), baseline), "captured before OpenBao changes");
        assert.ok(dependsOn(baseline, byName(bridge, "control-plane-preflight")));
        const [rollout] = byType(bridge, ROLLOUT);
        assert.equal((rollout.inputs as Record<string, any>).jwtPluginLifecycle.mode, "bridge");
    });

    test("without OpenBao there is nothing to roll", async () => {
        const off = await runDev({ openbao: { enabled: false }, nats: { enabled: false } });
        assert.deepEqual(byType(off, ROLLOUT), []);
        assert.deepEqual(byType(off, BASELINE), []);
    });
});

describe("the credential rotations in the program", () => {
    const CREDENTIAL = "pulumi-nodejs:dynamic/nvcf:OpenBaoKvCredential";
    const MEK = "pulumi-nodejs:dynamic/nvcf:OpenBaoMekRotation";
    const NKEY = "pulumi-nodejs:dynamic/nvcf:NatsNkeyRotation";
    const CASSANDRA = "pulumi-nodejs:dynamic/nvcf:CassandraPasswordRotation";

    test("kept in both kv-v2 places, a secret; after the readers' releases and OpenBao's rollout, before the health gate", () => {
        const [credential] = byType(dev, CREDENTIAL);
        assert.equal(credential.name, "control-plane-sidecar-pull-credential");
        for (const r of ["api", "nvct-api", "openbao-server"]) assert.ok(dependsOn(credential, release(dev, r)), `after ${r}`);
        assert.ok(dependsOn(credential, byType(dev, ROLLOUT)[0]), "after the rollout");
        assert.ok(dependsOn(byName(dev, "control-plane-health-gate"), credential), "the gate checks after the restart");
        const inputs = credential.inputs as Record<string, any>;
        assert.deepEqual(inputs.targets, [
            { mount: "services/nvcf-api/kv", key: "sidecars/image-pull-secret" },
            { mount: "services/nvct-api/kv", key: "sidecars/image-pull-secret" },
        ]);
        assert.deepEqual(inputs.readers, [
            { namespace: "nvcf", release: "api" },
            { namespace: "nvcf", release: "nvct-api" },
        ]);
        assert.equal(inputs.format, "docker-auth");
        assert.ok(isSecretAt(credential.rawInputs, ["data"]), "the value is a Pulumi secret");
        // The same value the migrations get, so a first install writes nothing.
        const env = valuesOf(dev, "openbao-server").openbao.migrations.env as { name: string; value: string }[];
        assert.equal(inputs.data.secret, env.find((e) => e.name === "NVCF_API_SIDECARS_IMAGE_PULL_SECRET")!.value);
    });

    test("credentialRotation.enabled: false leaves OpenBao as the migrations wrote it", async () => {
        const { config, secretKeys } = devConfig();
        const off = await runProgram(withConfig(config, { "nvcf-self-managed:credentialRotation": { enabled: false } }), secretKeys);
        assert.deepEqual(byType(off, CREDENTIAL), []);
        assert.deepEqual(byType(off, MEK), []);
        assert.deepEqual(byType(off, NKEY), []);
        assert.deepEqual(byType(off, CASSANDRA), []);
    });

    test("the MEK rotation: its counter from the settings, its readers ESS, api-keys, nvcf-api in that order, before the health gate", async () => {
        const [rotation] = byType(dev, MEK);
        assert.equal(rotation.name, "control-plane-mek-rotation");
        const inputs = rotation.inputs as Record<string, any>;
        assert.equal(inputs.rotation, 0);
        assert.deepEqual(inputs.readers, [
            { namespace: "ess", release: "ess-api" },
            { namespace: "api-keys", release: "api-keys" },
            { namespace: "nvcf", release: "api" },
        ]);
        for (const r of ["ess-api", "api-keys", "api", "openbao-server"]) assert.ok(dependsOn(rotation, release(dev, r)), `after ${r}`);
        assert.ok(dependsOn(byName(dev, "control-plane-health-gate"), rotation));
        const { config, secretKeys } = devConfig();
        const raised = await runProgram(withConfig(config, { "nvcf-self-managed:credentialRotation": { mekRotations: 1 } }), secretKeys);
        assert.equal((byType(raised, MEK)[0].inputs as Record<string, unknown>).rotation, 1);
    });

    test("the NATS NKey rotation: counter, mode and force from the settings; the callout restarted first, nats-box last; before the health gate", async () => {
        const [rotation] = byType(dev, NKEY);
        assert.equal(rotation.name, "control-plane-nats-nkey-rotation");
        const inputs = rotation.inputs as Record<string, any>;
        assert.deepEqual([inputs.rotation, inputs.workerAuth, inputs.force], [0, "nkey", false]);
        assert.deepEqual(inputs.readers, [
            { namespace: "nats-system", release: "nats-auth-callout-service" },
            { namespace: "nvcf", release: "api" },
            { namespace: "nvcf", release: "invocation-service" },
            { namespace: "nvcf", release: "grpc-proxy" },
            { namespace: "sis", release: "sis" },
            { namespace: "nats-system", release: "nats" },
        ]);
        for (const r of ["nats", "nats-auth-callout-service", "api", "sis", "openbao-server"]) {
            assert.ok(dependsOn(rotation, release(dev, r)), `after ${r}`);
        }
        assert.ok(dependsOn(rotation, byType(dev, ROLLOUT)[0]), "after the rollout (migration 03 copies the Secret on each install)");
        assert.ok(dependsOn(byName(dev, "control-plane-health-gate"), rotation));
        const { config, secretKeys } = devConfig();
        const raised = await runProgram(
            withConfig(config, {
                "nvcf-self-managed:credentialRotation": { natsNkeyRotations: 1, natsNkeyForce: true },
                "nvcf-self-managed:controlPlane": { nats: { workerAuth: "token" } },
            }),
            secretKeys,
        );
        const r = byType(raised, NKEY)[0].inputs as Record<string, unknown>;
        assert.deepEqual([r.rotation, r.workerAuth, r.force], [1, "token", true]);
    });

    test("the Cassandra password rotation: cassandraPassword as the migrations get it, a secret; its readers in order; after Cassandra, the readers and OpenBao; before the health gate", async () => {
        const [rotation] = byType(dev, CASSANDRA);
        assert.equal(rotation.name, "control-plane-cassandra-password-rotation");
        const inputs = rotation.inputs as Record<string, any>;
        assert.deepEqual(inputs.readers, [
            { namespace: "ess", release: "ess-api" },
            { namespace: "api-keys", release: "api-keys" },
            { namespace: "sis", release: "sis" },
            { namespace: "nvcf", release: "api" },
            { namespace: "nvcf", release: "nvct-api" },
            { namespace: "nvcf", release: "function-autoscaler" },
        ]);
        assert.deepEqual(inputs.superuser, { user: "cassandra", password: "cassandra" }, "the chart's dbUser, which the stack never sets");
        assert.ok(isSecretAt(rotation.rawInputs, ["password"]), "the password is a Pulumi secret");
        assert.ok(isSecretAt(rotation.rawInputs, ["superuser"]), "the superuser's login is a Pulumi secret");
        // The value the roles and OpenBao's logins were made with, so a first install runs no Job.
        assert.equal(inputs.password, valuesOf(dev, "cassandra").cassandra.serviceRolePassword);
        const env = valuesOf(dev, "openbao-server").openbao.migrations.env as { name: string; value: string }[];
        assert.equal(inputs.password, env.find((e) => e.name === "DEFAULT_CASSANDRA_PASSWORD")!.value);
        for (const r of ["cassandra", "ess-api", "api-keys", "sis", "api", "nvct-api", "function-autoscaler", "openbao-server"]) {
            assert.ok(dependsOn(rotation, release(dev, r)), `after ${r}`);
        }
        assert.ok(dependsOn(rotation, byType(dev, ROLLOUT)[0]), "after the rollout");
        assert.ok(dependsOn(byName(dev, "control-plane-health-gate"), rotation), "the gate checks after the restarts");
        // A superuser password given to the chart (its initdb hook sets it) is the login the Job uses.
        const given = await runDev({}, { releases: { cassandra: { values: { cassandra: { dbUser: { password: "given-superuser" } } } } } });
        assert.deepEqual((byType(given, CASSANDRA)[0].inputs as Record<string, any>).superuser, {
            user: "cassandra",
            password: "given-superuser",
        });
        const none = await runDev({ cassandra: { enabled: false } });
        assert.deepEqual(byType(none, CASSANDRA), [], "no Cassandra installed here, no roles to rotate");
    });
});
