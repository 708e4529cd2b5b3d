import type * as pulumi from "@pulumi/pulumi";
import type { ClusterReach } from "../../lib/cluster-access/reach";
import { installedReleases } from "../../lib/health/helm-releases";
import { runReleaseTests, SMOKE_FIELD_MANAGER, testHooks, type HookRun } from "../../lib/smoke/helm-tests";
import { platformSmoke, type PlatformRun, type PlatformTarget } from "../../lib/smoke/platform";
import { deleteRecord, SMOKE_RECORD, writeRecord } from "../../lib/smoke/record";
import { defineProvider, type ProviderContext } from "./kit";

export interface SmokeReleaseRef {
    readonly name: string;
    readonly namespace: string;
    /** A new revision (an install or upgrade) runs the smoke again. */
    readonly revision: number;
}

export interface SmokeCheckInputs {
    readonly reach: ClusterReach;
    readonly releases: readonly SmokeReleaseRef[];
    readonly helmTests: boolean;
    readonly platform?: PlatformTarget;
    readonly timeoutSeconds: number;
    readonly pollSeconds: number;
}

export interface SmokeCheckOutputs extends SmokeCheckInputs {
    readonly helmTestRuns: HookRun[];
    readonly platformRun?: PlatformRun;
}

/** One line per failed part, for the error that fails `up`. */
export function smokeFailures(helmTestRuns: readonly HookRun[], platformRun: PlatformRun | undefined): string[] {
    return [
        ...helmTestRuns
            .filter((r) => r.phase === "Failed")
            .map((r) => `helm test ${r.release} (revision ${r.revision}): ${r.kind} ${r.namespace}/${r.hook}: ${r.detail}`),
        ...(platformRun?.steps ?? []).filter((s) => !s.ok).map((s) => `platform smoke: ${s.step}: ${s.detail}`),
    ];
}

/**
 * The smoke check after install: the charts' own `helm test` hooks, then (when on) a user's first
 * call through the Gateway. It runs when created and again whenever a release's revision changes;
 * its result goes to the record `npm run status` reads, passed or not, and a failure fails `up`
 * with what failed (no state is written, so the next `up` runs it again). Delete removes the
 * record and the test Pods, which Helm's default policy keeps.
 */
export const SmokeCheckProvider = defineProvider<SmokeCheckInputs, SmokeCheckOutputs>({
    // The failure that fails `up` begins with it, so it reads as it always has.
    describe: () => "the smoke check after install",
    secrets: ["nvcfAdminToken"],
    id: () => `${SMOKE_RECORD.namespace}/${SMOKE_RECORD.name}`,
    create: runSmoke,
    // No read: the last run stays what it was; the next release change runs it again.
    delete: async (_id, props, ctx) => {
        const kube = await ctx.kube(props.reach);
        for (const run of props.helmTestRuns ?? []) {
            const res = await kube.request("DELETE", run.path);
            if (res.status !== 404 && res.status >= 300)
                throw new Error(`deleting the test ${run.kind} ${run.namespace}/${run.hook} answered HTTP ${res.status}`);
        }
        await deleteRecord(kube);
    },
});

async function runSmoke(inputs: SmokeCheckInputs, ctx: ProviderContext): Promise<SmokeCheckOutputs> {
    const kube = await ctx.kube(inputs.reach);
    const say = (line: string) => ctx.say(`smoke: ${line}`);
    const helmTestRuns: HookRun[] = [];
    if (inputs.helmTests) {
        const namespaces = [...new Set(inputs.releases.map((r) => r.namespace))];
        const installed = await installedReleases(kube, namespaces);
        for (const ref of inputs.releases) {
            const release = installed.find((r) => r.name === ref.name && r.namespace === ref.namespace);
            if (!release || testHooks(release).length === 0) continue;
            helmTestRuns.push(
                ...(await runReleaseTests(kube, release, {
                    timeoutSeconds: inputs.timeoutSeconds,
                    pollMs: inputs.pollSeconds * 1000,
                    say,
                })),
            );
        }
        if (helmTestRuns.length === 0) say("no release of this control plane has helm test hooks");
    }
    const platformRun = inputs.platform
        ? await platformSmoke(inputs.platform, ctx.secret("nvcfAdminToken"), say, ctx.options.retryDelayMs)
        : undefined;
    await writeRecord(
        kube,
        { time: new Date().toISOString(), helmTests: helmTestRuns, ...(platformRun ? { platform: platformRun } : {}) },
        SMOKE_FIELD_MANAGER,
    );
    const failures = smokeFailures(helmTestRuns, platformRun);
    if (failures.length > 0) {
        throw new Error(
            `the smoke check after install failed:\n  ${failures.join("\n  ")}\n` +
                "(the releases are installed and the health gate passed; fix the cause and run pulumi up again, which runs the smoke check again; " +
                `npm run status -- --stack <stack> shows the last run; checks.smoke.helmTests or checks.smoke.platform: false turns a part off)`,
        );
    }
    return { ...inputs, helmTestRuns, ...(platformRun ? { platformRun } : {}) };
}

export type SmokeCheckArgs = { [K in keyof SmokeCheckInputs]: pulumi.Input<SmokeCheckInputs[K]> };
