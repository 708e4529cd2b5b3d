import { z } from "zod";
import { dnsLabel, dnsSubdomain, grammarString } from "./grammar";

/** AWS identifiers, checked before anything is declared. */
export const awsRegion = z.string().regex(/^[a-z]{2}(-gov|-iso[a-z]?)?-[a-z]+-\d$/, { message: "must be an AWS region such as us-west-2" });
export const roleArn = z.string().regex(/^arn:aws(-[a-z]+)*:iam::\d{12}:role\/[\w+=,.@/-]{1,512}$/, {
    message: "must be an IAM role ARN such as arn:aws:iam::123456789012:role/deployer",
});
export const hostedZoneId = z
    .string()
    .regex(/^Z[A-Z0-9]{1,32}$/, { message: "must be a Route 53 hosted zone ID such as Z0123456789ABCDEFGHIJ" });

/** How to reach AWS: the credential chain, optionally a named profile and a role to assume. */
export const awsAccessShape = {
    region: awsRegion,
    /** A profile of ~/.aws/config; unset: the default credential chain. */
    profile: z.string().min(1).optional(),
    /** A role to assume for the lookups and for `aws eks get-token`. */
    roleArn: roleArn.optional(),
};

/** An EKS cluster given by name: the program looks up its endpoint, CA and OIDC issuer. */
export const eksClusterSchema = z.strictObject({
    name: z.string().regex(/^[0-9A-Za-z][A-Za-z0-9_-]{0,99}$/, { message: "must be an EKS cluster name" }),
    ...awsAccessShape,
});
export type EksClusterConfig = z.infer<typeof eksClusterSchema>;

/** Route 53 records for the route hostnames, pointing at the Gateway's load balancer. */
export const dnsSchema = z
    .strictObject({
        route53: z
            .strictObject({
                zoneId: hostedZoneId,
                ...awsAccessShape,
                /** The Gateway whose address the records point at; default the shared gateway. */
                gateway: z.strictObject({ name: grammarString(dnsSubdomain), namespace: grammarString(dnsLabel) }).optional(),
                ttl: z.number().int().min(0).max(172800).default(300),
            })
            .optional(),
    })
    .prefault({});
export type DnsConfig = z.infer<typeof dnsSchema>;

const ECR = /^(\d{12})\.dkr\.ecr\.([a-z0-9-]+)\.amazonaws\.com(\.cn)?$/;

/** The account and region of an ECR registry host, or undefined for any other registry. */
export function ecrRegistry(host: string): { accountId: string; region: string } | undefined {
    const m = ECR.exec(host);
    return m ? { accountId: m[1], region: m[2] } : undefined;
}
