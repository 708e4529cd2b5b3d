import type * as pulumi from "@pulumi/pulumi";
import { PROJECT } from "../../config/model/project";
import type { Kube } from "../../lib/kubernetes/client";
import { openBaoMembers, tokenSourceOf, type OpenBaoReach } from "../../lib/openbao/access";
import { verifyJwtMounts, type JwtBaseline, type JwtMountReport } from "../../lib/openbao/jwt-mounts";
import type { OpenBaoMembers } from "../../lib/openbao/members";
import { leaderOf, type RolloutTarget } from "../../lib/openbao/leader";
import { memberRevisions, rollOut } from "../../lib/openbao/rollout";
import { defineProvider, type ProviderContext } from "./kit";
import { messageOf } from "../../lib/text/message-of";

export interface OpenBaoRolloutInputs extends OpenBaoReach {
    /** What the members' pod template is made of (the chart version, the server's values): a change is a rollout in the plan. */
    readonly podTemplate: Record<string, unknown>;
    /** false: members are left on their template, and the plan says which run an old one. */
    readonly enabled: boolean;
    readonly memberTimeoutSeconds: number;
    readonly pollSeconds: number;
    /** With `openbao.jwtPluginLifecycle.mode`: the mounts are checked against this baseline after every rollout. */
    readonly jwtPluginLifecycle?: { readonly mode: "bridge" | "versioned"; readonly baseline: JwtBaseline };
}

export interface OpenBaoRolloutOutputs extends OpenBaoRolloutInputs {
    /** The StatefulSet's update revision ("" before it has one). */
    readonly revision: string;
    /** Members running another revision: empty after a rollout; a refresh that finds some is drift. */
    readonly staleMembers: string[];
    /** The members the last run replaced, in order. */
    readonly replaced: string[];
    readonly clusterId: string;
    readonly jwtMounts?: JwtMountReport;
}

/**
 * OpenBao's StatefulSet uses `OnDelete`: a Helm upgrade changes its template and replaces no pod.
 * This resource, after the openbao-server release, replaces the members that run an old template
 * (lib/openbao/rollout.ts), then checks the JWT mounts when the plugin lifecycle is on.
 * Its diff looks at the members too, so a preview or `up` after an interrupted rollout goes on;
 * its read reports members on an old revision as drift. Delete does nothing.
 */
export const OpenBaoRolloutProvider = defineProvider<OpenBaoRolloutInputs, OpenBaoRolloutOutputs>({
    describe: (inputs) => inputs.statefulSet,
    secrets: ["openbaoToken"],
    plan: (olds, news, changed, ctx) => {
        const stale = olds.staleMembers ?? [];
        if (!news.enabled && changed.includes("podTemplate")) ctx.say(offMessage(news, "changes"));
        else if (!news.enabled && stale.length > 0) ctx.say(offMessage(news, "stale", stale, olds.revision));
    },
    unknownIsChange: true,
    changes: async (olds, news, ctx) => {
        if ((olds.staleMembers ?? []).length > 0) return true;
        // The template is the same, but members may not be: a rollout that stopped, a pod restored from an old revision.
        try {
            const kube = await ctx.kube(news.reach);
            const revisions = await memberRevisions(kube, target(news));
            if (!revisions || revisions.updateStrategy !== "OnDelete") return false;
            if (revisions.stale.length > 0 && !news.enabled) ctx.say(offMessage(news, "stale", revisions.stale, revisions.revision));
            // A template the controller has not taken in yet may be a new revision.
            return revisions.stale.length > 0 || !revisions.settled;
        } catch (err) {
            // up reports it with the fix; the plan shows that it will try.
            ctx.say(`${news.statefulSet}: could not look at its members (${messageOf(err)})`);
            return true;
        }
    },
    id: (inputs) => `${inputs.namespace}/${inputs.statefulSet}`,
    create: apply,
    importRefused: "importing an OpenBao rollout is not supported; declare it instead",
    read: async (_id, props, ctx) => {
        const revisions = await memberRevisions(await ctx.kube(props.reach), target(props));
        return { ...props, revision: revisions?.revision ?? "", staleMembers: revisions?.stale ?? [] };
    },
});

async function apply(inputs: OpenBaoRolloutInputs, ctx: ProviderContext): Promise<OpenBaoRolloutOutputs> {
    const kube = await ctx.kube(inputs.reach);
    const members = openBaoMembers(kube, inputs, tokenSourceOf(inputs, ctx.secret("openbaoToken")));
    const where = target(inputs);
    const timing = { memberTimeoutMs: inputs.memberTimeoutSeconds * 1000, pollMs: ctx.options.pollMs ?? inputs.pollSeconds * 1000 };
    if (!inputs.enabled) {
        const revisions = await memberRevisions(kube, where, timing);
        const stale = revisions?.stale ?? [];
        if (stale.length > 0) ctx.say(offMessage(inputs, "stale", stale, revisions?.revision));
        const jwtMounts = stale.length === 0 ? await checkMounts(kube, members, inputs, ctx) : undefined;
        return outputs(inputs, { revision: revisions?.revision, stale, replaced: [], jwtMounts });
    }
    const report = await rollOut(kube, members, where, {
        ...timing,
        log: (line) => ctx.say(`${inputs.statefulSet} rollout: ${line}`),
    });
    if (report.nothingToDo) ctx.say(`${inputs.statefulSet} rollout: nothing to replace (${report.nothingToDo})`);
    const jwtMounts = await checkMounts(kube, members, inputs, ctx);
    const stale = (await memberRevisions(kube, where))?.stale ?? [];
    return outputs(inputs, { revision: report.revision, stale, replaced: report.replaced, clusterId: report.clusterId, jwtMounts });
}

/** The runbook's check after every member runs the new template, against the kept baseline. */
async function checkMounts(
    kube: Kube,
    members: OpenBaoMembers,
    inputs: OpenBaoRolloutInputs,
    ctx: ProviderContext,
): Promise<JwtMountReport | undefined> {
    if (!inputs.jwtPluginLifecycle) return undefined;
    const leader = await leaderOf(kube, members, target(inputs));
    if (!leader) {
        throw new Error(
            `no ${inputs.statefulSet} member says it leads, so the JWT mounts could not be checked against the baseline ` +
                `(kubectl -n ${inputs.namespace} get pods; kubectl -n ${inputs.namespace} exec <pod> -c openbao -- bao status), then run pulumi up again`,
        );
    }
    const report = await verifyJwtMounts(members, leader, inputs.jwtPluginLifecycle.baseline);
    ctx.say(
        `${inputs.statefulSet}: JWT mounts checked against the baseline: ${report.kept.length} kept their plugin, ` +
            `${report.added.length} new on ${report.target ? report.target.version || "the unversioned entry" : "the target entry"}`,
    );
    return report;
}

function target(inputs: OpenBaoReach): RolloutTarget {
    return { namespace: inputs.namespace, statefulSet: inputs.statefulSet };
}

function outputs(
    inputs: OpenBaoRolloutInputs,
    r: { revision?: string; stale: string[]; replaced: string[]; clusterId?: string; jwtMounts?: JwtMountReport },
): OpenBaoRolloutOutputs {
    return {
        ...inputs,
        revision: r.revision ?? "",
        staleMembers: r.stale,
        replaced: r.replaced,
        clusterId: r.clusterId ?? "",
        ...(r.jwtMounts ? { jwtMounts: r.jwtMounts } : {}),
    };
}

/** What the plan and `up` say while the automatic rollout is off. */
function offMessage(inputs: OpenBaoRolloutInputs, what: "changes" | "stale", stale: string[] = [], revision?: string): string {
    const how =
        `replace them one at a time, standbys first and the leader last after \`bao operator step-down\`, each unsealed before the next ` +
        `(docs/operations.md, OpenBao upgrades), or set ${PROJECT}:openbaoRollout.enabled to true and run pulumi up`;
    return what === "changes"
        ? `${inputs.statefulSet}: its pod template changes and the automatic rollout is off (${PROJECT}:openbaoRollout.enabled: false): ` +
              `after pulumi up its members keep running the old template until they are replaced; ${how}`
        : `${inputs.statefulSet}: ${stale.join(", ")} still run${stale.length === 1 ? "s" : ""} an old pod template ` +
              `(the StatefulSet's is revision ${revision ?? "?"}) and the automatic rollout is off; ${how}`;
}

export type OpenBaoRolloutArgs = { [K in keyof OpenBaoRolloutInputs]: pulumi.Input<OpenBaoRolloutInputs[K]> };
