import * as pulumi from "@pulumi/pulumi";
import type { EksClusterConfig } from "../../config/model/aws-schema";
import { AwsProviders, awsSdk } from "./providers";

/** An EKS cluster as the program reaches it. */
export interface EksCluster {
    /** A kubeconfig with the endpoint, the CA and an `aws eks get-token` exec credential; no secret in it. */
    readonly kubeconfig: pulumi.Output<string>;
    /** The cluster's service-account issuer (its IAM OIDC provider URL). */
    readonly oidcIssuer: pulumi.Output<string>;
}

/** The kubeconfig EKS users expect: the exec credential honours the profile and the role. */
export function eksKubeconfig(eks: EksClusterConfig, endpoint: string, caData: string): string {
    const args = ["--region", eks.region, "eks", "get-token", "--cluster-name", eks.name, "--output", "json"];
    if (eks.roleArn) args.push("--role-arn", eks.roleArn);
    return JSON.stringify({
        apiVersion: "v1",
        kind: "Config",
        clusters: [{ name: eks.name, cluster: { server: endpoint, "certificate-authority-data": caData } }],
        users: [
            {
                name: eks.name,
                user: {
                    exec: {
                        apiVersion: "client.authentication.k8s.io/v1beta1",
                        command: "aws",
                        args,
                        ...(eks.profile ? { env: [{ name: "AWS_PROFILE", value: eks.profile }] } : {}),
                        interactiveMode: "Never",
                    },
                },
            },
        ],
        contexts: [{ name: eks.name, context: { cluster: eks.name, user: eks.name } }],
        "current-context": eks.name,
    });
}

/** Looks an EKS cluster up by name. */
export function eksCluster(eks: EksClusterConfig, providers: AwsProviders): EksCluster {
    const cluster = awsSdk().eks.getClusterOutput({ name: eks.name }, { provider: providers.get(eks) });
    return {
        kubeconfig: cluster.apply((c) => eksKubeconfig(eks, c.endpoint, c.certificateAuthorities[0]?.data ?? "")),
        oidcIssuer: cluster.apply((c) => {
            const issuer = c.identities[0]?.oidcs[0]?.issuer;
            if (!issuer) throw new Error(`the EKS cluster ${eks.name} has no OIDC issuer`);
            return issuer;
        }),
    };
}
