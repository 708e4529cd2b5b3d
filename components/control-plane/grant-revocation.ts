import * as pulumi from "@pulumi/pulumi";
import type { GrantRevocationArgs } from "../providers/openbao-grant-revocation";
import { GrantRevocationResource } from "../resources/openbao-grant-revocation";

/**
 * The withdrawal of the admin issuer proxy's OpenBao grant, declared while the proxy is
 * disabled. A component, for a stable `nvcf:openbao:GrantRevocation` type token around the
 * dynamic resource that does the work.
 */
export class OpenBaoGrantRevocation extends pulumi.ComponentResource {
    /** The dynamic resource that deletes the grant's three OpenBao objects. */
    readonly revocation: GrantRevocationResource;

    constructor(name: string, args: GrantRevocationArgs, opts?: pulumi.ComponentResourceOptions) {
        super("nvcf:openbao:GrantRevocation", name, {}, opts);
        this.revocation = new GrantRevocationResource(
            `${name}-grant`,
            args,
            // The component's dependsOn, on the resource itself too, so the edge is on the one that acts.
            { parent: this, dependsOn: opts?.dependsOn },
        );
        this.registerOutputs({});
    }
}
