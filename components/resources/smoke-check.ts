import * as pulumi from "@pulumi/pulumi";
import type { HookRun } from "../../lib/smoke/helm-tests";
import type { PlatformRun } from "../../lib/smoke/platform";
import type { SmokeCheckArgs } from "../providers/smoke-check";
import { providerReference } from "./provider-reference";

const provider = providerReference("smoke-check");

/** The smoke check after the control plane's health gate (`checks.smoke`). */
export class SmokeCheck extends pulumi.dynamic.Resource {
    declare readonly helmTestRuns: pulumi.Output<HookRun[]>;
    declare readonly platformRun: pulumi.Output<PlatformRun | undefined>;
    constructor(name: string, args: SmokeCheckArgs, opts?: pulumi.CustomResourceOptions) {
        super(provider, name, { ...args, helmTestRuns: undefined, platformRun: undefined }, opts, "nvcf", "SmokeCheck");
    }
}
