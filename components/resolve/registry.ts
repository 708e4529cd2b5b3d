import * as pulumi from "@pulumi/pulumi";
import { ecrRegistry } from "../../config/aws-schema";
import type { Settings } from "../../config/load";
import { ecrChartCredentials } from "../aws/ecr";
import type { AwsProviders } from "../aws/providers";
import { chartCredentials, type ChartCredentials, type HelmSources } from "./chart-source";

/**
 * Chart-pull credentials for a chart source: an ECR token for an ECR registry, else the
 * configured password (or NGC key) for NGC or a named user, else none.
 */
export function chartAuth(sources: HelmSources, settings: Settings, aws: AwsProviders): ChartCredentials | undefined {
    if (!sources.url && !sources.path && sources.registry && ecrRegistry(sources.registry)) {
        return ecrChartCredentials(sources.registry, aws);
    }
    return chartCredentials(sources, settings.secrets.chartRegistryPassword ?? settings.secrets.ngcApiKey);
}

/**
 * The password of the pull secrets, when the stack creates them: never for ECR, whose nodes
 * pull with their IAM role, nor when the user turned them off.
 */
export function pullSecretPassword(settings: Settings, imageRegistry: string): pulumi.Output<string> | undefined {
    if (!settings.registry.pullSecret.enabled || ecrRegistry(imageRegistry)) return undefined;
    return settings.secrets.ngcApiKey;
}
