import * as pulumi from "@pulumi/pulumi";
import type { Kube } from "../../lib/kubernetes/client";
import { openBaoMembers, tokenSourceOf, type OpenBaoReach } from "./access";
import { captureJwtBaseline, type JwtBaseline } from "./jwt-mounts";
import { leaderOf } from "./leader";
import { readStatefulSet } from "./statefulset";
import { changedInputs, secretConfig, readKubeSecrets } from "../dynamic/base";
import { connect } from "../../lib/kubernetes/connect";
import type { KubeSecrets } from "../../lib/cluster-access/reach";

export interface JwtBaselineInputs extends OpenBaoReach {
    /** `openbao.jwtPluginLifecycle.mode`: a change keeps the baseline. */
    readonly mode: "bridge" | "versioned";
}

export interface JwtBaselineOutputs extends JwtBaselineInputs {
    readonly baseline: JwtBaseline;
}

export interface BaselineProviderOptions {
    readonly kube?: Kube;
    readonly now?: () => Date;
}

/**
 * The JWT mounts before OpenBao changes, for the plugin lifecycle's checks. The openbao-server
 * release depends on it, so it is captured from the running OpenBao before the bridge is
 * applied; on a new install there is nothing yet, and every mount found later is new. It is
 * captured once and kept: an update (bridge to versioned) and a refresh never capture it again.
 */
export class JwtBaselineProvider implements pulumi.dynamic.ResourceProvider<JwtBaselineInputs, JwtBaselineOutputs> {
    private secrets: KubeSecrets = {};
    private token?: string;

    constructor(private readonly options: BaselineProviderOptions = {}) {}

    async configure(req: pulumi.dynamic.ConfigureRequest): Promise<void> {
        this.secrets = readKubeSecrets(req);
        this.token = secretConfig(req, "openbaoToken");
    }

    async diff(_id: string, olds: JwtBaselineOutputs, news: JwtBaselineInputs): Promise<pulumi.dynamic.DiffResult> {
        return { changes: changedInputs(olds, news).length > 0 };
    }

    async create(inputs: JwtBaselineInputs): Promise<pulumi.dynamic.CreateResult<JwtBaselineOutputs>> {
        const kube = this.options.kube ?? (await connect(inputs.reach, this.secrets, 30));
        const members = openBaoMembers(kube, inputs, tokenSourceOf(inputs, this.token));
        const target = { namespace: inputs.namespace, statefulSet: inputs.statefulSet };
        const installed = (await readStatefulSet(kube, inputs.namespace, inputs.statefulSet)) !== undefined;
        const leader = installed ? await leaderOf(kube, members, target) : undefined;
        if (installed && !leader) {
            throw new Error(
                `${inputs.statefulSet} is installed but no member says it leads, so the JWT mounts' baseline could not be captured ` +
                    `and OpenBao was not changed: check its members (kubectl -n ${inputs.namespace} get pods; ` +
                    `kubectl -n ${inputs.namespace} exec <pod> -c openbao -- bao status), then run pulumi up again`,
            );
        }
        const baseline = await captureJwtBaseline(members, leader, this.options.now?.());
        return { id: `${inputs.namespace}/${inputs.statefulSet}-jwt-baseline`, outs: { ...inputs, baseline } };
    }

    async update(_id: string, olds: JwtBaselineOutputs, news: JwtBaselineInputs): Promise<pulumi.dynamic.UpdateResult<JwtBaselineOutputs>> {
        // The runbook keeps the first baseline through every retry and the switch to versioned.
        return { outs: { ...news, baseline: olds.baseline } };
    }

    async read(id: string, props?: JwtBaselineOutputs): Promise<pulumi.dynamic.ReadResult<JwtBaselineOutputs>> {
        return { id, props };
    }

    async delete(): Promise<void> {}
}

export type JwtBaselineArgs = { [K in keyof JwtBaselineInputs]: pulumi.Input<JwtBaselineInputs[K]> };

const provider = new JwtBaselineProvider();

/** The JWT mounts' baseline, captured before the openbao-server release changes. */
export class OpenBaoJwtBaseline extends pulumi.dynamic.Resource {
    declare readonly baseline: pulumi.Output<JwtBaseline>;
    constructor(name: string, args: JwtBaselineArgs, opts?: pulumi.CustomResourceOptions) {
        super(provider, name, { ...args, baseline: undefined }, opts, "nvcf", "OpenBaoJwtBaseline");
    }
}
