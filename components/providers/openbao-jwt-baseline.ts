import type * as pulumi from "@pulumi/pulumi";
import { openBaoMembers, tokenSourceOf, type OpenBaoReach } from "../../lib/openbao/access";
import { captureJwtBaseline, type JwtBaseline } from "../../lib/openbao/jwt-mounts";
import { leaderOf } from "../../lib/openbao/leader";
import { readStatefulSet } from "../../lib/openbao/statefulset";
import { defineProvider } from "./kit";

export interface JwtBaselineInputs extends OpenBaoReach {
    /** `openbao.jwtPluginLifecycle.mode`: a change keeps the baseline. */
    readonly mode: "bridge" | "versioned";
}

export interface JwtBaselineOutputs extends JwtBaselineInputs {
    readonly baseline: JwtBaseline;
}

/**
 * The JWT mounts before OpenBao changes, for the plugin lifecycle's checks. The openbao-server
 * release depends on it, so it is captured from the running OpenBao before the bridge is
 * applied; on a new install there is nothing yet, and every mount found later is new. It is
 * captured once and kept: an update (bridge to versioned) and a refresh never capture it again.
 */
export const JwtBaselineProvider = defineProvider<JwtBaselineInputs, JwtBaselineOutputs>({
    describe: (inputs) => `the JWT mounts' baseline of ${inputs.namespace}/${inputs.statefulSet}`,
    secrets: ["openbaoToken"],
    id: (inputs) => `${inputs.namespace}/${inputs.statefulSet}-jwt-baseline`,
    create: async (inputs, ctx) => {
        const kube = await ctx.kube(inputs.reach);
        const members = openBaoMembers(kube, inputs, tokenSourceOf(inputs, ctx.secret("openbaoToken")));
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
        return { ...inputs, baseline: await captureJwtBaseline(members, leader, ctx.options.now?.()) };
    },
    // The runbook keeps the first baseline through every retry and the switch to versioned.
    update: async (_id, olds, news) => ({ ...news, baseline: olds.baseline }),
});

export type JwtBaselineArgs = { [K in keyof JwtBaselineInputs]: pulumi.Input<JwtBaselineInputs[K]> };
