/**
 * The fleet file is checked before any resource is declared, and a rejected one says, for each
 * problem, the key, what was given and what is allowed, as the root project's stack file does.
 * Each test is one mistake a user makes, with the exact lines they would read.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { ConfigError } from "../../config/model/errors";
import { ENVIRONMENTS_KEY, environment, exampleConfig, onPremEnvironment, problemLines, runFleet } from "./fleet-support";

const SHA = "3f2c1b0a9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b";
const INLINE =
    "must be a reference to a Kubernetes Secret, never the secret itself (the value is not shown; remove it from the file and from its history); allowed: {name: <a Secret in the environment's namespace>, key: <its key>}";

describe("the fleet file: what it accepts", () => {
    test("the example fleet, and a minimal environment with every default", () => {
        const example = exampleConfig()[ENVIRONMENTS_KEY];
        assert.deepEqual(problemLines(example), []);
        assert.deepEqual(problemLines({ dev: environment() }), []);
    });

    test("a tag, a branch to follow, a Flux source, a postgres:// backend with the password elsewhere, a passphrase from a Secret", () => {
        const lines = problemLines({
            tagged: environment({ stack: "tagged", source: { git: { repo: "git@github.com:example-org/nvcf.git", commit: "v1.4.0" } } }),
            tracking: environment({
                stack: "tracking",
                source: { git: { repo: "https://github.com/example-org/nvcf.git", branch: "main" } },
            }),
            flux: environment({
                stack: "flux",
                source: { flux: { apiVersion: "source.toolkit.fluxcd.io/v1", kind: "GitRepository", name: "nvcf" } },
            }),
            onprem: onPremEnvironment(),
        });
        assert.deepEqual(lines, []);
    });
});

describe("the fleet file: what it rejects, and the exact message", () => {
    test("an unknown key, with the nearest known one and the keys allowed there", () => {
        assert.deepEqual(problemLines({ dev: environment({ refersh: true }) }), [
            'nvcf-fleet:environments.dev.refersh: unknown key (did you mean "refresh"?); allowed: stack, namespace, createNamespace, source, backend, secretsProvider, secrets, serviceAccount, workspace, refresh, resyncFrequencySeconds, retryOnUpdateConflict, destroyOnFinalize, prerequisites',
        ]);
        assert.deepEqual(
            problemLines({ dev: environment({ secrets: { config: { ngcApikey: { name: "nvcf-dev", key: "ngcApiKey" } } } }) }),
            [
                'nvcf-fleet:environments.dev.secrets.config.ngcApikey: unknown key (did you mean "ngcApiKey"?); allowed: ngcApiKey, accountRegistryKey, sidecarRegistryKey, chartRegistryPassword, cassandraPassword, kubeconfig, nvcfAdminToken, openbaoToken',
            ],
        );
    });

    test("an unknown key of the project itself", () => {
        assert.deepEqual(problemLines(undefined, { unknownKeys: ["enviroments"] }), [
            'nvcf-fleet:enviroments: unknown setting (did you mean "environments"?); allowed: nvcf-fleet:cluster, nvcf-fleet:operator, nvcf-fleet:environments',
            "nvcf-fleet:environments: is not set, and it is required; allowed: a value of type record",
        ]);
    });

    test("a prerequisite naming an environment the fleet does not have", () => {
        const lines = problemLines({
            dev: environment(),
            staging: environment({ stack: "staging" }),
            prod: environment({ stack: "prod", prerequisites: [{ environment: "stagng" }] }),
        });
        assert.deepEqual(lines, [
            'nvcf-fleet:environments.prod.prerequisites[0].environment: names no environment of this fleet (did you mean "staging"?); given "stagng"; allowed: dev, staging',
        ]);
    });

    test("a prerequisite in another namespace, which the operator would never find", () => {
        const lines = problemLines({
            dev: environment({ namespace: "nvcf-dev" }),
            prod: environment({ stack: "prod", namespace: "nvcf-prod", prerequisites: [{ environment: "dev" }] }),
        });
        assert.deepEqual(lines, [
            'nvcf-fleet:environments.prod.prerequisites[0].environment: names an environment in namespace nvcf-dev, and the operator looks prerequisites up in the Stack\'s own namespace (nvcf-prod); given "dev"; allowed: an environment in namespace nvcf-prod (move one there)',
        ]);
    });

    test("a prerequisite cycle, named once with every environment on it", () => {
        const lines = problemLines({
            dev: environment({ prerequisites: [{ environment: "prod" }] }),
            staging: environment({ stack: "staging", prerequisites: [{ environment: "dev" }] }),
            prod: environment({ stack: "prod", prerequisites: [{ environment: "staging" }] }),
        });
        assert.deepEqual(lines, [
            "nvcf-fleet:environments.dev.prerequisites: the prerequisites form a cycle, so none of these Stacks would ever run: dev -> prod -> staging -> dev; allowed: prerequisites that lead from the first environment to promote to the last, never back",
        ]);
        assert.deepEqual(problemLines({ dev: environment({ prerequisites: [{ environment: "dev" }] }) }), [
            "nvcf-fleet:environments.dev.prerequisites: the prerequisites form a cycle, so none of these Stacks would ever run: dev -> dev; allowed: prerequisites that lead from the first environment to promote to the last, never back",
        ]);
    });

    test("an environment name over the Stack CRD's 42 characters, beside the file's other problems", () => {
        const name = "nvcf-production-us-west-2-gpu-cluster-blue1"; // 43 characters
        assert.equal(name.length, 43);
        assert.deepEqual(problemLines({ [name]: environment({ refresh: "yes" }) }), [
            `nvcf-fleet:environments.${name}.refresh: Invalid input: expected boolean, received string; given "yes"; allowed: a value of type boolean`,
            `nvcf-fleet:environments.${name}: the name must be an RFC 1123 label of at most 42 characters: it is 43 characters long, and it names the Stack, which the operator's CRD refuses over 42; given "${name}"; allowed: lower-case letters, digits and '-', starting and ending with a letter or digit, at most 42 characters (the operator's Stack CRD: size(self.metadata.name) <= 42)`,
        ]);
        assert.deepEqual(problemLines({ [name.slice(0, 42)]: environment() }), []);
    });

    test("a secret pasted where a Secret reference belongs: refused everywhere, never echoed", () => {
        const lines = problemLines({
            dev: environment({
                secretsProvider: "passphrase",
                secrets: { passphrase: "SENTINEL-passphrase", env: { PGPASSWORD: "SENTINEL-db" }, config: { ngcApiKey: "nvapi-SENTINEL" } },
                source: { git: { repo: "https://github.com/example-org/nvcf.git", commit: SHA, auth: { accessToken: "ghp_SENTINEL" } } },
            }),
        });
        assert.deepEqual(lines, [
            `nvcf-fleet:environments.dev.source.git.auth.accessToken: ${INLINE}`,
            `nvcf-fleet:environments.dev.secrets.passphrase: ${INLINE}`,
            `nvcf-fleet:environments.dev.secrets.env.PGPASSWORD: ${INLINE}`,
            `nvcf-fleet:environments.dev.secrets.config.ngcApiKey: ${INLINE}`,
        ]);
        assert.ok(!lines.join("\n").includes("SENTINEL"));
    });

    test("a wrong shape under secrets or auth, and an unknown backend with a password, never echoed", () => {
        const lines = problemLines({
            dev: environment({
                backend: "ftp://pulumi:SENTINEL@files.example/state",
                secrets: { env: "SENTINEL-env", config: "SENTINEL-config" },
            }),
        });
        assert.deepEqual(lines, [
            "nvcf-fleet:environments.dev.backend: must not carry a credential (it has a password in its user part; the value is not shown): give it through secrets.env (PGPASSWORD for postgres://, the cloud's own variables for a bucket); allowed: a URL without a password; the credential as a Secret reference",
            "nvcf-fleet:environments.dev.secrets.env: Invalid input: expected record, received string; allowed: a value of type record",
            "nvcf-fleet:environments.dev.secrets.config: Invalid input: expected object, received string; allowed: a value of type object",
        ]);
    });

    test("a credential inside the backend's or the repository's URL, never echoed", () => {
        const lines = problemLines({
            dev: environment({
                backend: "postgres://pulumi:SENTINEL@db:5432/state?sslmode=verify-full",
                source: { git: { repo: "https://x-access-token:SENTINEL@github.com/example-org/nvcf.git", commit: SHA } },
            }),
        });
        assert.deepEqual(lines, [
            "nvcf-fleet:environments.dev.source.git.repo: must not carry a credential (it has a password in its user part; the value is not shown): give it through source.git.auth; allowed: a URL without a password; the credential as a Secret reference",
            "nvcf-fleet:environments.dev.backend: must not carry a credential (it has a password in its user part; the value is not shown): give it through secrets.env (PGPASSWORD for postgres://, the cloud's own variables for a bucket); allowed: a URL without a password; the credential as a Secret reference",
        ]);
        assert.ok(!lines.join("\n").includes("SENTINEL"));
    });

    test("a pinned commit that is a short SHA, or neither a SHA nor a tag", () => {
        const at = (commit: string) =>
            problemLines({ dev: environment({ source: { git: { repo: "https://github.com/example-org/nvcf.git", commit } } }) });
        assert.deepEqual(at("3f2c1b0"), [
            'nvcf-fleet:environments.dev.source.git.commit: must be a full commit SHA or a tag: it looks like a short SHA, and the operator takes only 40 hex digits as a commit (it would look "3f2c1b0" up as a ref name and stall); given "3f2c1b0"; allowed: the 40 hex digits of a commit, or a tag name such as v1.4.0 (not a short SHA)',
        ]);
        assert.deepEqual(at("release 1.4"), [
            'nvcf-fleet:environments.dev.source.git.commit: must be a full commit SHA or a tag: it contains a space, a control character or one of ~ ^ : ? * [ \\; given "release 1.4"; allowed: the 40 hex digits of a commit, or a tag name such as v1.4.0 (not a short SHA)',
        ]);
        assert.deepEqual(at(SHA.toUpperCase()), []);
    });

    test("a commit and a branch both, or neither", () => {
        const git = (more: Record<string, unknown>) =>
            problemLines({ dev: environment({ source: { git: { repo: "https://github.com/example-org/nvcf.git", ...more } } }) });
        assert.deepEqual(git({ commit: SHA, branch: "main" }), [
            "nvcf-fleet:environments.dev.source.git: sets commit and branch; only one of them is read (the operator runs a pinned commit or follows a branch); allowed: exactly one of commit, branch",
        ]);
        assert.deepEqual(git({}), [
            "nvcf-fleet:environments.dev.source.git: needs one of commit, branch (the operator runs a pinned commit or follows a branch); allowed: exactly one of commit, branch",
        ]);
    });

    test("a backend no other run sees, and a passphrase provider without its passphrase", () => {
        assert.deepEqual(problemLines({ dev: environment({ backend: "file:///var/pulumi" }) }), [
            'nvcf-fleet:environments.dev.backend: must be a backend every run shares: file:// in a workspace pod is that pod\'s own disk; given "file:///var/pulumi"; allowed: s3://<bucket>[/<prefix>], postgres://<host>[:<port>]/<database>, azblob://<container>, gs://<bucket>, https://<Pulumi Cloud>',
        ]);
        assert.deepEqual(problemLines({ dev: environment({ secretsProvider: "passphrase" }) }), [
            "nvcf-fleet:environments.dev.secrets.passphrase: is not set, and secretsProvider passphrase needs it (PULUMI_CONFIG_PASSPHRASE); allowed: {name, key} of the Secret holding the passphrase",
        ]);
    });

    test("an environment variable the operator sets itself", () => {
        const ref = { name: "nvcf-dev", key: "url" };
        assert.deepEqual(problemLines({ dev: environment({ secrets: { env: { PULUMI_BACKEND_URL: ref } } }) }), [
            "nvcf-fleet:environments.dev.secrets.env.PULUMI_BACKEND_URL: the name must be an environment variable the fleet may set: the operator or secrets.passphrase sets it; allowed: letters, digits and '_', not starting with a digit, such as PGPASSWORD; not PULUMI_BACKEND_URL or PULUMI_CONFIG_PASSPHRASE",
        ]);
    });

    test("two environments on one stack of one backend, and a shared namespace one creates and one does not", () => {
        assert.deepEqual(problemLines({ dev: environment(), dev2: environment() }), [
            'nvcf-fleet:environments.dev2.stack: is the stack environment dev runs on the same backend; each stack belongs to one environment; given "dev"; allowed: a stack other than dev on this backend',
        ]);
        assert.deepEqual(problemLines({ dev: environment({ createNamespace: true }), prod: environment({ stack: "prod" }) }), [
            "nvcf-fleet:environments.prod.createNamespace: disagrees with environments.dev, which shares namespace nvcf-fleet and sets createNamespace true; given false; allowed: true",
        ]);
    });

    test("two stacks on one PostgreSQL backend that differ only where one has '_'", () => {
        assert.deepEqual(problemLines({ a: onPremEnvironment({ stack: "prod-1" }), b: onPremEnvironment({ stack: "prod_1" }) }), [
            "nvcf-fleet:environments.b.stack: differs from stack prod-1 of environment a, on the same PostgreSQL backend, only where one has '_': that backend matches keys with LIKE, where '_' is any character, and the CLI fails on such a pair; given \"prod_1\"; allowed: a stack name that differs from prod-1 in a character other than '_'",
        ]);
        // Another character apart, another length, or another backend: no clash.
        assert.deepEqual(problemLines({ a: onPremEnvironment({ stack: "prod-1" }), b: onPremEnvironment({ stack: "prod_2" }) }), []);
        assert.deepEqual(problemLines({ a: onPremEnvironment({ stack: "prod_1" }), b: onPremEnvironment({ stack: "prod_10" }) }), []);
        assert.deepEqual(problemLines({ a: environment({ stack: "prod-1" }), b: environment({ stack: "prod_1" }) }), []);
    });

    test("the program stops at a rejected file with the same message", async () => {
        const config = {
            ...exampleConfig(),
            [ENVIRONMENTS_KEY]: { dev: environment({ secrets: { config: { ngcApiKey: "nvapi-SENTINEL" } } }) },
        };
        await assert.rejects(runFleet(config), (error: Error) => {
            assert.ok(error instanceof ConfigError, `${error.name}: ${error.message}`);
            assert.equal(
                error.message,
                ["Invalid stack configuration:", `  - nvcf-fleet:environments.dev.secrets.config.ngcApiKey: ${INLINE}`].join("\n"),
            );
            return true;
        });
    });
});
