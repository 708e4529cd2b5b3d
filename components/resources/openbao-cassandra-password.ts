import * as pulumi from "@pulumi/pulumi";
import type { CassandraPasswordArgs } from "../providers/openbao-cassandra-password";
import { providerReference } from "./provider-reference";

const provider = providerReference("openbao-cassandra-password");

/** Every Cassandra service role's password, in Cassandra and in OpenBao, kept equal to `cassandraPassword`. */
export class CassandraPasswordRotation extends pulumi.dynamic.Resource {
    declare readonly rotated: pulumi.Output<string[]>;
    declare readonly written: pulumi.Output<string[]>;
    declare readonly restarted: pulumi.Output<string[]>;
    declare readonly drifted: pulumi.Output<string[]>;
    constructor(name: string, args: CassandraPasswordArgs, opts?: pulumi.CustomResourceOptions) {
        super(
            provider,
            name,
            { ...args, rotated: undefined, written: undefined, restarted: undefined, drifted: undefined },
            { ...opts, additionalSecretOutputs: ["password", "superuser"] },
            "nvcf",
            "CassandraPasswordRotation",
        );
    }
}
