import * as pulumi from "@pulumi/pulumi";
import { providerReference } from "./provider-reference";

const provider = providerReference("bundle-receipt-key");

/** The HMAC key of the receipt's values digests; it stays in the stack's state, never on the cluster. */
export class ReceiptKey extends pulumi.dynamic.Resource {
    declare readonly key: pulumi.Output<string>;
    constructor(name: string, opts?: pulumi.CustomResourceOptions) {
        super(provider, name, { key: undefined }, { ...opts, additionalSecretOutputs: ["key"] }, "nvcf", "BundleReceiptKey");
    }
}
