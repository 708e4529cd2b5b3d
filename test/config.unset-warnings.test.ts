/**
 * The warnings a preview gives for settings left unset whose default an environment rarely wants
 * (config/unset-warnings.ts): the program, run under the mocks, where the SDK writes a warning to
 * the console as `warning: [runtime] <message>` (there is no engine to send it to).
 */
import assert from "node:assert/strict";
import { before, describe, test } from "node:test";
import type { ProgramRun } from "./support/harness";
import { runDev } from "./support/runs";

/** What the program warned while `run` ran, and what it returned. */
async function warnedDuring(run: () => Promise<ProgramRun>): Promise<{ run: ProgramRun; warnings: string[] }> {
    const warnings: string[] = [];
    const warn = console.warn;
    console.warn = (...args: unknown[]) => void warnings.push(args.join(" "));
    try {
        return { run: await run(), warnings };
    } finally {
        console.warn = warn;
    }
}

const aboutDomain = (warnings: readonly string[]) => warnings.filter((w) => w.includes("controlPlane.global.domain"));

describe("controlPlane.global.domain left unset", () => {
    let unset: { run: ProgramRun; warnings: string[] };
    let setToLocalhost: { run: ProgramRun; warnings: string[] };
    before(async () => {
        // One after the other: each capture must hold only its own run's console.
        unset = await warnedDuring(() => runDev({ global: { domain: undefined } }));
        setToLocalhost = await warnedDuring(() => runDev({ global: { domain: "localhost" } }));
    });

    test("warns once, naming the key, the localhost it uses, and the command that sets it", () => {
        assert.deepEqual(aboutDomain(unset.warnings), [
            "warning: [runtime] nvcf-self-managed:controlPlane.global.domain is not set, so the routes use the bundle's default " +
                "localhost (api.localhost, api-keys.localhost, nats.localhost, ...), which no client outside the cluster resolves. " +
                "Set the domain your Gateway serves: pulumi config set --path controlPlane.global.domain <domain>",
        ]);
    });

    test("the preview goes on with localhost, as NVIDIA's Helmfile would", () => {
        const routes = unset.run.outputs.routes as Record<string, string>;
        assert.equal(routes.api, "api.localhost");
    });

    test("a domain the stack sets, even localhost itself, gives no warning", () => {
        assert.deepEqual(aboutDomain(setToLocalhost.warnings), []);
        assert.equal((setToLocalhost.run.outputs.routes as Record<string, string>).api, "api.localhost");
    });
});
