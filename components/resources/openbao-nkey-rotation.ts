import * as pulumi from "@pulumi/pulumi";
import type { NkeyRotationArgs } from "../providers/openbao-nkey-rotation";
import { providerReference } from "./provider-reference";

const provider = providerReference("openbao-nkey-rotation");

/** The shared NATS NKey replaced when `credentialRotation.natsNkeyRotations` goes up. */
export class NatsNkeyRotation extends pulumi.dynamic.Resource {
    declare readonly publicKey: pulumi.Output<string>;
    declare readonly rotatedAt: pulumi.Output<string>;
    declare readonly restarted: pulumi.Output<string[]>;
    constructor(name: string, args: NkeyRotationArgs, opts?: pulumi.CustomResourceOptions) {
        super(
            provider,
            name,
            { ...args, publicKey: undefined, rotatedAt: undefined, restarted: undefined },
            opts,
            "nvcf",
            "NatsNkeyRotation",
        );
    }
}
