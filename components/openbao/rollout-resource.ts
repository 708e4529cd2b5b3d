import * as pulumi from "@pulumi/pulumi";
import { PROJECT } from "../../config/model/project";
import type { Kube } from "../../lib/kubernetes/client";
import { openBaoMembers, tokenSourceOf, type OpenBaoReach } from "./access";
import { verifyJwtMounts, type JwtBaseline, type JwtMountReport } from "./jwt-mounts";
import type { OpenBaoMembers } from "./members";
import { leaderOf, type RolloutTarget } from "./leader";
import { memberRevisions, rollOut } from "./rollout";
import { changedInputs, secretConfig, UNKNOWN_INPUT, readKubeSecrets } from "../dynamic/base";
import { connect } from "../../lib/kubernetes/connect";
import type { KubeSecrets } from "../../lib/cluster-access/reach";

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

export interface RolloutProviderOptions {
    /** Replaces the real API server (tests). */
    readonly kube?: Kube;
    /** Where progress and plain warnings go; default stderr, which the Pulumi CLI shows. */
    readonly say?: (line: string) => void;
    /** Overrides pollSeconds (tests). */
    readonly pollMs?: number;
}

/**
 * OpenBao's StatefulSet uses `OnDelete`: a Helm upgrade changes its template and replaces no pod.
 * This resource, after the openbao-server release, replaces the members that run an old template
 * (components/openbao/rollout.ts), then checks the JWT mounts when the plugin lifecycle is on.
 * Its diff looks at the members too, so a preview or `up` after an interrupted rollout goes on;
 * its read reports members on an old revision as drift. Delete does nothing.
 */
export class OpenBaoRolloutProvider implements pulumi.dynamic.ResourceProvider<OpenBaoRolloutInputs, OpenBaoRolloutOutputs> {
    private secrets: KubeSecrets = {};
    // Set by configure() in the provider's own process; never serialized with the program.
    private token?: string;

    constructor(private readonly options: RolloutProviderOptions = {}) {}

    async configure(req: pulumi.dynamic.ConfigureRequest): Promise<void> {
        this.secrets = readKubeSecrets(req);
        this.token = secretConfig(req, "openbaoToken");
    }

    async diff(_id: string, olds: OpenBaoRolloutOutputs, news: OpenBaoRolloutInputs): Promise<pulumi.dynamic.DiffResult> {
        const changed = changedInputs(olds, news);
        const stale = olds.staleMembers ?? [];
        if (!news.enabled && changed.includes("podTemplate")) this.say(offMessage(news, "changes"));
        else if (!news.enabled && stale.length > 0) this.say(offMessage(news, "stale", stale, olds.revision));
        if (changed.length > 0 || stale.length > 0) return { changes: true };
        const { __provider: _source, ...declared } = news as OpenBaoRolloutInputs & { __provider?: string };
        if (JSON.stringify(declared).includes(UNKNOWN_INPUT)) return { changes: true };
        // The template is the same, but members may not be: a rollout that stopped, a pod restored from an old revision.
        try {
            const kube = await this.kube(news);
            const revisions = await memberRevisions(kube, target(news));
            if (!revisions || revisions.updateStrategy !== "OnDelete") return { changes: false };
            if (revisions.stale.length > 0 && !news.enabled) this.say(offMessage(news, "stale", revisions.stale, revisions.revision));
            // A template the controller has not taken in yet may be a new revision.
            return { changes: revisions.stale.length > 0 || !revisions.settled };
        } catch (err) {
            // up reports it with the fix; the plan shows that it will try.
            this.say(`${news.statefulSet}: could not look at its members (${err instanceof Error ? err.message : String(err)})`);
            return { changes: true };
        }
    }

    async create(inputs: OpenBaoRolloutInputs): Promise<pulumi.dynamic.CreateResult<OpenBaoRolloutOutputs>> {
        return { id: `${inputs.namespace}/${inputs.statefulSet}`, outs: await this.apply(inputs) };
    }

    async update(
        _id: string,
        _olds: OpenBaoRolloutOutputs,
        news: OpenBaoRolloutInputs,
    ): Promise<pulumi.dynamic.UpdateResult<OpenBaoRolloutOutputs>> {
        return { outs: await this.apply(news) };
    }

    async read(id: string, props?: OpenBaoRolloutOutputs): Promise<pulumi.dynamic.ReadResult<OpenBaoRolloutOutputs>> {
        if (!props) throw new Error("importing an OpenBao rollout is not supported; declare it instead");
        const revisions = await memberRevisions(await this.kube(props), target(props));
        return { id, props: { ...props, revision: revisions?.revision ?? "", staleMembers: revisions?.stale ?? [] } };
    }

    async delete(): Promise<void> {}

    private say(line: string): void {
        (this.options.say ?? ((l: string) => process.stderr.write(`${l}\n`)))(line);
    }

    private async kube(inputs: OpenBaoReach): Promise<Kube> {
        return this.options.kube ?? connect(inputs.reach, this.secrets, 30);
    }

    private async apply(inputs: OpenBaoRolloutInputs): Promise<OpenBaoRolloutOutputs> {
        const kube = await this.kube(inputs);
        const members = openBaoMembers(kube, inputs, tokenSourceOf(inputs, this.token));
        const where = target(inputs);
        const timing = { memberTimeoutMs: inputs.memberTimeoutSeconds * 1000, pollMs: this.options.pollMs ?? inputs.pollSeconds * 1000 };
        if (!inputs.enabled) {
            const revisions = await memberRevisions(kube, where, timing);
            const stale = revisions?.stale ?? [];
            if (stale.length > 0) this.say(offMessage(inputs, "stale", stale, revisions?.revision));
            const jwtMounts = stale.length === 0 ? await this.checkMounts(kube, members, inputs) : undefined;
            return outputs(inputs, { revision: revisions?.revision, stale, replaced: [], jwtMounts });
        }
        const report = await rollOut(kube, members, where, {
            ...timing,
            log: (line) => this.say(`${inputs.statefulSet} rollout: ${line}`),
        });
        if (report.nothingToDo) this.say(`${inputs.statefulSet} rollout: nothing to replace (${report.nothingToDo})`);
        const jwtMounts = await this.checkMounts(kube, members, inputs);
        const stale = (await memberRevisions(kube, where))?.stale ?? [];
        return outputs(inputs, { revision: report.revision, stale, replaced: report.replaced, clusterId: report.clusterId, jwtMounts });
    }

    /** The runbook's check after every member runs the new template, against the kept baseline. */
    private async checkMounts(kube: Kube, members: OpenBaoMembers, inputs: OpenBaoRolloutInputs): Promise<JwtMountReport | undefined> {
        if (!inputs.jwtPluginLifecycle) return undefined;
        const leader = await leaderOf(kube, members, target(inputs));
        if (!leader) {
            throw new Error(
                `no ${inputs.statefulSet} member says it leads, so the JWT mounts could not be checked against the baseline ` +
                    `(kubectl -n ${inputs.namespace} get pods; kubectl -n ${inputs.namespace} exec <pod> -c openbao -- bao status), then run pulumi up again`,
            );
        }
        const report = await verifyJwtMounts(members, leader, inputs.jwtPluginLifecycle.baseline);
        this.say(
            `${inputs.statefulSet}: JWT mounts checked against the baseline: ${report.kept.length} kept their plugin, ` +
                `${report.added.length} new on ${report.target ? report.target.version || "the unversioned entry" : "the target entry"}`,
        );
        return report;
    }
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

const provider = new OpenBaoRolloutProvider();

/** The member-by-member rollout of OpenBao's StatefulSet, after its release. */
export class OpenBaoRollout extends pulumi.dynamic.Resource {
    declare readonly revision: pulumi.Output<string>;
    declare readonly staleMembers: pulumi.Output<string[]>;
    declare readonly replaced: pulumi.Output<string[]>;
    constructor(name: string, args: OpenBaoRolloutArgs, opts?: pulumi.CustomResourceOptions) {
        super(
            provider,
            name,
            { ...args, revision: undefined, staleMembers: undefined, replaced: undefined, clusterId: undefined, jwtMounts: undefined },
            opts,
            "nvcf",
            "OpenBaoRollout",
        );
    }
}
