import * as pulumi from "@pulumi/pulumi";
import type { JwtBaseline } from "../../lib/openbao/jwt-mounts";
import type { JwtBaselineArgs } from "../providers/openbao-jwt-baseline";
import { providerReference } from "./provider-reference";

const provider = providerReference("openbao-jwt-baseline");

/** The JWT mounts' baseline, captured before the openbao-server release changes. */
export class OpenBaoJwtBaseline extends pulumi.dynamic.Resource {
    declare readonly baseline: pulumi.Output<JwtBaseline>;
    constructor(name: string, args: JwtBaselineArgs, opts?: pulumi.CustomResourceOptions) {
        super(provider, name, { ...args, baseline: undefined }, opts, "nvcf", "OpenBaoJwtBaseline");
    }
}
