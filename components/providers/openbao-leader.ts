import type { Kube } from "../../lib/kubernetes/client";
import type { OpenBaoReach } from "../../lib/openbao/access";
import { activeMember } from "../../lib/openbao/leader";
import type { OpenBaoMembers } from "../../lib/openbao/members";
import type { ProviderContext } from "./kit";

/**
 * The cluster and OpenBao's active member, for a provider that reads or writes OpenBao with the
 * stack's `openbaoToken` (else the chart's root-token Secret); `what` starts the message when no
 * member leads.
 */
export async function openBaoLeader(
    inputs: OpenBaoReach,
    ctx: ProviderContext,
    what: string,
): Promise<{ kube: Kube; members: OpenBaoMembers; leader: string }> {
    const kube = await ctx.kube(inputs.reach);
    return { kube, ...(await activeMember(kube, inputs, ctx.secret("openbaoToken"), what)) };
}
