import * as pulumi from "@pulumi/pulumi";
import type { NvcaTeardownArgs } from "../providers/nvca-teardown";
import { providerReference } from "./provider-reference";

const provider = providerReference("nvca-teardown");

/** NVCA's leftovers on one GPU cluster, removed on destroy after the operator's uninstall. */
export class NvcaTeardown extends pulumi.dynamic.Resource {
    constructor(name: string, args: NvcaTeardownArgs, opts?: pulumi.CustomResourceOptions) {
        super(provider, name, args, opts, "nvcf", "NvcaTeardown");
    }
}
