import * as pulumi from "@pulumi/pulumi";
import type { OpenBaoRolloutArgs } from "../providers/openbao-rollout";
import { providerReference } from "./provider-reference";

const provider = providerReference("openbao-rollout");

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
