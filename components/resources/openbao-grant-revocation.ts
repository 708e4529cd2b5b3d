import * as pulumi from "@pulumi/pulumi";
import type { GrantRevocationArgs } from "../providers/openbao-grant-revocation";
import { providerReference } from "./provider-reference";

const provider = providerReference("openbao-grant-revocation");

/** The dynamic resource that revokes; `remaining` shows a grant a migration recreated. */
export class GrantRevocationResource extends pulumi.dynamic.Resource {
    declare readonly revoked: pulumi.Output<string[]>;
    declare readonly remaining: pulumi.Output<string[]>;
    constructor(name: string, args: GrantRevocationArgs, opts?: pulumi.CustomResourceOptions) {
        super(provider, name, { ...args, revoked: undefined, remaining: undefined }, opts, "nvcf", "OpenBaoGrantRevocation");
    }
}
