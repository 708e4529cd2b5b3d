import * as pulumi from "@pulumi/pulumi";
import type { MekRotationArgs } from "../providers/openbao-mek-rotation";
import { providerReference } from "./provider-reference";

const provider = providerReference("openbao-mek-rotation");

/** NVIDIA's MEK rotation, run when `credentialRotation.mekRotations` goes up. */
export class OpenBaoMekRotation extends pulumi.dynamic.Resource {
    declare readonly currentKid: pulumi.Output<string>;
    declare readonly kids: pulumi.Output<string[]>;
    declare readonly restarted: pulumi.Output<string[]>;
    constructor(name: string, args: MekRotationArgs, opts?: pulumi.CustomResourceOptions) {
        super(
            provider,
            name,
            { ...args, currentKid: undefined, kids: undefined, restarted: undefined },
            opts,
            "nvcf",
            "OpenBaoMekRotation",
        );
    }
}
