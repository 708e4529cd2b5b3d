import type { ConfigProblem } from "../model/errors";
import { PROJECT, type SecretKey } from "../model/keys";
import { ecrRegistry } from "../model/aws-schema";
import type { SettingsRule } from "./rule";

/** The NGC key: for the image pull secrets (unless ECR images), and for nvcr.io charts (unless chartRegistryPassword). */
export const ngcApiKeyRequired: SettingsRule = (settings) => {
    const problems: ConfigProblem[] = [];
    const has = (key: SecretKey) => settings.secrets[key] !== undefined;
    const ecrImages = ecrRegistry(settings.controlPlane.global.image.registry) !== undefined;
    if (settings.registry.pullSecret.enabled && !ecrImages && !has("ngcApiKey")) {
        problems.push({
            key: `${PROJECT}:ngcApiKey`,
            message:
                "is required for the image pull secrets (set it with `pulumi config set --secret ngcApiKey <key>`), " +
                "or set registry.pullSecret.enabled: false when nodes pull with their own identity",
        });
    }
    const sources = settings.controlPlane.global.helm.sources;
    const ngcCharts = !sources.url && !sources.path && sources.registry === "nvcr.io";
    if (ngcCharts && !has("ngcApiKey") && !has("chartRegistryPassword")) {
        problems.push({
            key: `${PROJECT}:ngcApiKey`,
            message: "is required to pull the charts from nvcr.io (or set chartRegistryPassword)",
        });
    }
    return problems;
};
