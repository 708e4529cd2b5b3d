import * as pulumi from "@pulumi/pulumi";
import { ecrRegistry } from "../../config/model/aws-schema";
import type { ChartCredentials } from "../kubernetes/chart-source";
import { AwsProviders, awsSdk } from "./providers";

/**
 * Chart-pull credentials for an ECR registry: a token from `ecr:GetAuthorizationToken`, fetched
 * at every run (it lasts 12 hours), never a long-lived secret in config.
 */
export function ecrChartCredentials(registryHost: string, providers: AwsProviders): ChartCredentials | undefined {
    const ecr = ecrRegistry(registryHost);
    if (!ecr) return undefined;
    const token = awsSdk().ecr.getAuthorizationTokenOutput(
        { registryId: ecr.accountId },
        { provider: providers.get({ region: ecr.region }) },
    );
    return { username: "AWS", password: pulumi.secret(token.password) };
}
