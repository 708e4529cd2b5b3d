import * as pulumi from "@pulumi/pulumi";
import type { KvCredentialArgs } from "../providers/openbao-kv-credential";
import { providerReference } from "./provider-reference";

const provider = providerReference("openbao-kv-credential");

/** A credential in OpenBao kept equal to the stack file; `drifted` shows places a refresh found changed. */
export class OpenBaoKvCredential extends pulumi.dynamic.Resource {
    declare readonly written: pulumi.Output<string[]>;
    declare readonly restarted: pulumi.Output<string[]>;
    declare readonly drifted: pulumi.Output<string[]>;
    constructor(name: string, args: KvCredentialArgs, opts?: pulumi.CustomResourceOptions) {
        super(
            provider,
            name,
            { ...args, written: undefined, restarted: undefined, drifted: undefined },
            // The fields stay secret in the outputs as in the inputs.
            { ...opts, additionalSecretOutputs: ["data"] },
            "nvcf",
            "OpenBaoKvCredential",
        );
    }
}
