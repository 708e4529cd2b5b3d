import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import type { AwsAccess, AwsProviders } from "./providers";
import { awsSdk } from "./providers";

/** A Gateway API Gateway read from the cluster: only its status is used. */
class GatewayRead extends pulumi.CustomResource {
    declare readonly status: pulumi.Output<{ addresses?: { type?: string; value: string }[] } | undefined>;
    constructor(name: string, id: pulumi.Input<string>, opts: pulumi.CustomResourceOptions) {
        super("kubernetes:gateway.networking.k8s.io/v1:Gateway", name, { status: undefined }, { ...opts, id });
    }
}

export interface GatewayDnsArgs {
    readonly zoneId: string;
    readonly access: AwsAccess;
    readonly gateway: { readonly name: string; readonly namespace: string };
    /**
     * The Gateway when the stack installs it (declared to wait for its address): read only once
     * it exists, so a first install does not read a Gateway it has not created yet.
     */
    readonly declared?: k8s.apiextensions.CustomResource;
    /** Hostnames to point at the Gateway (the route hostnames, the wildcard included). */
    readonly hostnames: readonly string[];
    readonly ttl: number;
    readonly kubernetes: k8s.Provider;
    readonly aws: AwsProviders;
}

/** The record type for a load-balancer address: A for an IP, CNAME for a hostname. */
export function recordType(address: string): "A" | "AAAA" | "CNAME" {
    if (/^\d{1,3}(\.\d{1,3}){3}$/.test(address)) return "A";
    if (address.includes(":")) return "AAAA";
    return "CNAME";
}

/**
 * Route 53 records for every route hostname, pointing at the address the Gateway's load balancer
 * reports, so `global.domain` resolves without manual DNS work.
 */
export class GatewayDns extends pulumi.ComponentResource {
    /** The address the Gateway's load balancer reports, which every record points at. */
    readonly address: pulumi.Output<string>;

    constructor(name: string, args: GatewayDnsArgs, opts?: pulumi.ComponentResourceOptions) {
        super("nvcf:aws:GatewayDns", name, {}, opts);
        const where = `${args.gateway.namespace}/${args.gateway.name}`;
        const gateway = new GatewayRead(`${name}-gateway`, args.declared ? args.declared.id.apply(() => where) : where, {
            parent: this,
            provider: args.kubernetes,
            ...(args.declared ? { dependsOn: [args.declared] } : {}),
        });
        this.address = gateway.status.apply((status) => {
            const address = status?.addresses?.[0]?.value;
            if (!address) {
                throw new Error(
                    `the Gateway ${args.gateway.namespace}/${args.gateway.name} reports no address yet (status.addresses is empty)`,
                );
            }
            return address;
        });
        const provider = args.aws.get(args.access);
        for (const hostname of args.hostnames) {
            new (awsSdk().route53.Record)(
                `${name}-${hostname.replace(/^\*\./, "wildcard.")}`,
                {
                    zoneId: args.zoneId,
                    name: hostname,
                    type: this.address.apply(recordType),
                    ttl: args.ttl,
                    records: [this.address],
                },
                { parent: this, provider },
            );
        }
        this.registerOutputs({ address: this.address });
    }
}
