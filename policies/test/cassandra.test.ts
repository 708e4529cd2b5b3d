import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { cassandraPasswordSet } from "../rules/cassandra-password-set";
import { cassandraPasswordsMatch } from "../rules/cassandra-passwords-match";
import { openbaoMigrationsEnvComplete } from "../rules/openbao-migrations-env-complete";
import {
    assertHasResourceViolation,
    assertHasStackViolation,
    assertNoResourceViolations,
    assertNoStackViolations,
    createResourceValidationArgs as args,
    createStackValidationArgs as stack,
    fixtureUrn,
    runStackPolicy,
    UNKNOWN_FROM_ENGINE,
} from "./support/args";
import {
    ALL_FIXTURES,
    CASSANDRA_PASSWORD,
    cassandraRelease,
    changeStack,
    compliantStack,
    GPU_CLUSTER,
    openbaoRelease,
    REMOVE,
    withProp,
} from "./support/fixtures";

const ROLE_PASSWORD = ["values", "cassandra", "serviceRolePassword"];
const envEntry = (i: number, field: "name" | "value") => ["values", "openbao", "migrations", "env", i, field];

describe("cassandra-password-set", () => {
    const policy = cassandraPasswordSet;

    it("passes every compliant fixture", async () => {
        for (const fixture of ALL_FIXTURES) await assertNoResourceViolations(policy, args(fixture()));
    });

    it("flags an unset service-role password", async () => {
        await assertHasResourceViolation(
            policy,
            args(withProp(cassandraRelease(), ROLE_PASSWORD, REMOVE)),
            "cassandra.serviceRolePassword is not set",
        );
    });

    it("flags the chart default service-role password", async () => {
        await assertHasResourceViolation(
            policy,
            args(withProp(cassandraRelease(), ROLE_PASSWORD, "ch@ng3m3")),
            "serviceRolePassword is the chart default",
        );
    });

    it("flags the chart default DEFAULT_CASSANDRA_PASSWORD", async () => {
        await assertHasResourceViolation(
            policy,
            args(withProp(openbaoRelease(), envEntry(0, "value"), "ch@ng3m3")),
            "DEFAULT_CASSANDRA_PASSWORD is the chart default",
        );
    });

    it("flags an empty DEFAULT_CASSANDRA_PASSWORD", async () => {
        await assertHasResourceViolation(
            policy,
            args(withProp(openbaoRelease(), envEntry(0, "value"), "")),
            "DEFAULT_CASSANDRA_PASSWORD is not set",
        );
    });

    it("skips a password unknown during preview (a RandomPassword on the first install)", async () => {
        await assertNoResourceViolations(policy, args(withProp(cassandraRelease(), ROLE_PASSWORD, UNKNOWN_FROM_ENGINE)));
        await assertNoResourceViolations(policy, args(withProp(openbaoRelease(), envEntry(0, "value"), UNKNOWN_FROM_ENGINE)));
    });
});

describe("cassandra-passwords-match", () => {
    const policy = cassandraPasswordsMatch;
    const cassandraUrn = fixtureUrn(cassandraRelease());

    it("passes the compliant stack", async () => {
        await assertNoStackViolations(policy, stack(compliantStack()));
    });

    it("flags a service-role password that differs from DEFAULT_CASSANDRA_PASSWORD", async () => {
        const broken = changeStack(compliantStack(), cassandraRelease().name, (r) =>
            withProp(r, ROLE_PASSWORD, "another-password-0123456789"),
        );
        await assertHasStackViolation(policy, stack(broken), "differs from DEFAULT_CASSANDRA_PASSWORD", cassandraUrn);
    });

    it("never quotes either password", async () => {
        const broken = changeStack(compliantStack(), cassandraRelease().name, (r) =>
            withProp(r, ROLE_PASSWORD, "another-password-0123456789"),
        );
        const [violation] = await runStackPolicy(policy, stack(broken));
        assert.ok(!violation.message.includes("another-password") && !violation.message.includes(CASSANDRA_PASSWORD));
    });

    it("compares only releases of the same cluster", async () => {
        const elsewhere = changeStack(compliantStack(), openbaoRelease().name, (r) => ({
            ...withProp(r, envEntry(0, "value"), "another-password-0123456789"),
            provider: GPU_CLUSTER,
        }));
        await assertNoStackViolations(policy, stack(elsewhere));
    });

    it("skips passwords unknown during preview", async () => {
        const unknown = changeStack(compliantStack(), cassandraRelease().name, (r) => withProp(r, ["values"], UNKNOWN_FROM_ENGINE));
        await assertNoStackViolations(policy, stack(unknown));
    });
});

describe("openbao-migrations-env-complete", () => {
    const policy = openbaoMigrationsEnvComplete;

    it("passes every compliant fixture", async () => {
        for (const fixture of ALL_FIXTURES) await assertNoResourceViolations(policy, args(fixture()));
    });

    it("flags a list without the sidecar secret entry (Helm replaced the list)", async () => {
        const env = (openbaoRelease().props.values as { openbao: { migrations: { env: unknown[] } } }).openbao.migrations.env;
        const broken = withProp(openbaoRelease(), ["values", "openbao", "migrations", "env"], [env[0], env[2]]);
        await assertHasResourceViolation(policy, args(broken), "has no NVCF_API_SIDECARS_IMAGE_PULL_SECRET entry");
    });

    it("flags an ADMIN_CLIENT_ID other than ncp", async () => {
        await assertHasResourceViolation(
            policy,
            args(withProp(openbaoRelease(), envEntry(2, "value"), "admin")),
            'ADMIN_CLIENT_ID is "admin"',
        );
    });

    it("flags a release without the list", async () => {
        await assertHasResourceViolation(
            policy,
            args(withProp(openbaoRelease(), ["values", "openbao", "migrations", "env"], REMOVE)),
            "sets no openbao.migrations.env list",
        );
    });

    it("skips entries whose names are unknown during preview", async () => {
        await assertNoResourceViolations(policy, args(withProp(openbaoRelease(), envEntry(1, "name"), UNKNOWN_FROM_ENGINE)));
    });
});
