import * as pulumi from "@pulumi/pulumi";
import type { DriftCorrectionArgs } from "../providers/release-drift-correction";
import { providerReference } from "./provider-reference";

const provider = providerReference("release-drift-correction");

/** A release's objects held to what Helm recorded (`releases.<name>.drift: correct`), after the release. */
export class ReleaseDriftCorrection extends pulumi.dynamic.Resource {
    declare readonly corrected: pulumi.Output<string[]>;
    declare readonly drifted: pulumi.Output<string[]>;
    constructor(name: string, args: DriftCorrectionArgs, opts?: pulumi.CustomResourceOptions) {
        super(provider, name, { ...args, corrected: undefined, drifted: undefined }, opts, "nvcf", "ReleaseDriftCorrection");
    }
}
