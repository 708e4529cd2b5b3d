import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { SECRET_KEYS, SecretKey } from "../config/model/keys";
import { secretFormProblems } from "../config/secret-forms";
import { devConfig, PROJECT, runProgramExpectingError } from "./support/harness";

// Every secret key fed malformed content through the whole program: the run stops at the
// config check, naming the key, and the secret's text reaches no message, log line or resource.

const MARK = "Zq7SECRETx9";

/** Malformed content per key, each holding the marker on every line it has. */
const MALFORMED: Record<SecretKey, string> = {
    ngcApiKey: `nvapi-${MARK}\nnvapi-${MARK}`,
    accountRegistryKey: `${MARK}\r\n${MARK}`,
    sidecarRegistryKey: `${MARK}\t${MARK}`,
    chartRegistryPassword: `${MARK}\u0000`,
    cassandraPassword: `pw-${MARK}\npw-${MARK}`,
    kubeconfig: `apiVersion: v1\nusers:\n- name: a\n  user:\n    token: ${MARK}\n   bad: [${MARK}\n`,
    computePlaneKubeconfigs: `{"gpu-a": "token: ${MARK}`,
    nvcfAdminToken: `Bearer ${MARK}`,
    openbaoToken: `s.${MARK}\nX-Injected: ${MARK}`,
};

/** Everything a run printed on stdout and stderr (Pulumi's log lines in a mock run). */
async function printed<T>(work: () => Promise<T>): Promise<{ result: T; text: string }> {
    let text = "";
    const out = process.stdout.write.bind(process.stdout);
    const err = process.stderr.write.bind(process.stderr);
    const keep = (chunk: unknown) => {
        text += typeof chunk === "string" ? chunk : Buffer.from(chunk as Uint8Array).toString("utf8");
        return true;
    };
    process.stdout.write = keep as typeof process.stdout.write;
    process.stderr.write = keep as typeof process.stderr.write;
    try {
        return { result: await work(), text };
    } finally {
        process.stdout.write = out;
        process.stderr.write = err;
    }
}

describe("no secret in any message", () => {
    test("every secret key has malformed content in this test", () => {
        assert.deepEqual(Object.keys(MALFORMED).sort(), [...SECRET_KEYS].sort());
    });

    for (const key of SECRET_KEYS) {
        test(`${key}: malformed, the program stops naming the key, and its text is nowhere`, async () => {
            const { config, secretKeys } = devConfig();
            const full = `${PROJECT}:${key}`;
            const { result, text } = await printed(() =>
                runProgramExpectingError({ ...config, [full]: MALFORMED[key] }, [...new Set([...secretKeys, full])]),
            );
            const { error, resources } = result;
            assert.match(error.message, new RegExp(`^  - ${full.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(\\.[\\w-]+)?: `, "m"));
            assert.match(error.message, /line \d+, column \d+|is not valid JSON/);
            assert.ok(!error.message.includes(MARK), `the message holds the secret: ${error.message}`);
            assert.ok(!text.includes(MARK), "a log line holds the secret");
            assert.deepEqual(resources, [], "nothing is registered before the error");
            assert.ok(!JSON.stringify(resources).includes(MARK));
        });
    }

    for (const key of SECRET_KEYS) {
        test(`${key}, misspelled in the stack file: the program names the unknown key, and its value is nowhere`, async () => {
            const { config, secretKeys } = devConfig();
            const typo = `${PROJECT}:${key.slice(0, -1)}`;
            const { result, text } = await printed(() => runProgramExpectingError({ ...config, [typo]: `v-${MARK}` }, secretKeys));
            assert.ok(result.error.message.includes(`${typo}: unknown`), result.error.message);
            assert.ok(!result.error.message.includes(MARK), `the message holds the value: ${result.error.message}`);
            assert.ok(!text.includes(MARK), "a log line holds the value");
        });
    }

    test("the form check itself reports positions only, for every key", () => {
        for (const key of SECRET_KEYS) {
            const problems = secretFormProblems(key, MALFORMED[key]);
            assert.ok(problems.length > 0, `${key} is malformed`);
            assert.ok(!JSON.stringify(problems).includes(MARK), `${key}: ${JSON.stringify(problems)}`);
        }
    });

    test("well-formed secrets pass the form check", () => {
        const kubeconfig = "apiVersion: v1\nkind: Config\nclusters: []\n";
        assert.deepEqual(secretFormProblems("kubeconfig", kubeconfig), []);
        assert.deepEqual(secretFormProblems("computePlaneKubeconfigs", JSON.stringify({ "gpu-a": kubeconfig })), []);
        assert.deepEqual(secretFormProblems("nvcfAdminToken", "eyJhbGciOi.eyJzdWIi.c2ln"), []);
        assert.deepEqual(secretFormProblems("ngcApiKey", "nvapi-abc def"), []);
        assert.deepEqual(secretFormProblems("cassandraPassword", "p@ss-w0rd!"), []);
    });

    test("the Cassandra password: each character NVIDIA's migrations cannot carry is refused, by position, never shown", () => {
        const refused = (password: string) => secretFormProblems("cassandraPassword", password).map((p) => p.message);
        assert.deepEqual(refused("p@ss w0rd!"), [
            "holds whitespace, which splits the value where OpenBao's migrations write it (unquoted `bao kv put`), at column 5",
        ]);
        assert.match(
            refused("it's")[0],
            /^holds a single quote, which ends the string of the roles' CQL \(`password = '…'`\), at column 3$/,
        );
        assert.match(refused('a"b')[0], /^holds a double quote or a backslash/);
        assert.match(refused("a\\b")[0], /^holds a double quote or a backslash/);
        assert.match(refused("pass*")[0], /^holds a glob character/);
        assert.deepEqual(refused("@secret"), [
            "must not start with @: OpenBao's migrations would read the password from a file of that name",
        ]);
        assert.ok(!JSON.stringify(secretFormProblems("cassandraPassword", `x'${MARK}`)).includes(MARK));
    });
});
