import * as pulumi from "@pulumi/pulumi";
import type { ClusterRegistrationArgs } from "../providers/cluster-registration";
import { providerReference } from "./provider-reference";

const provider = providerReference("cluster-registration");

/** A GPU cluster registered with the control plane's ICMS. */
export class ClusterRegistration extends pulumi.dynamic.Resource {
    declare readonly clusterId: pulumi.Output<string>;
    declare readonly clusterGroupId: pulumi.Output<string>;
    declare readonly oidcIssuer: pulumi.Output<string>;
    declare readonly jwksHash: pulumi.Output<string>;

    constructor(name: string, args: ClusterRegistrationArgs, opts?: pulumi.CustomResourceOptions) {
        super(
            provider,
            name,
            { ...args, clusterId: undefined, clusterGroupId: undefined, oidcIssuer: undefined, jwksHash: undefined },
            opts,
            "nvcf",
            "ClusterRegistration",
        );
    }
}
