import type { ConfigProblem } from "../model/errors";
import { PROJECT } from "../model/keys";
import { ecrRegistry } from "../model/aws-schema";
import type { SettingsRule } from "./rule";

/** Kyverno injects the stack's pull secret: there must be one, and Kyverno is installed only for that. */
export const kyvernoPullSecretMode: SettingsRule = (settings) => {
    const { pullSecret, kyverno } = settings.registry;
    const problems: ConfigProblem[] = [];
    if (pullSecret.mode === "kyverno" && !pullSecret.enabled) {
        problems.push({
            key: `${PROJECT}:registry.pullSecret.mode`,
            message: "kyverno injects the stack's pull secret, and registry.pullSecret.enabled is false (no pull secret)",
            given: "kyverno",
            allowed: "values, or registry.pullSecret.enabled: true",
        });
    }
    if (pullSecret.mode === "kyverno" && pullSecret.enabled && ecrRegistry(settings.controlPlane.global.image.registry)) {
        problems.push({
            key: `${PROJECT}:registry.pullSecret.mode`,
            message: "the stack creates no pull secret for an ECR registry (nodes pull with their IAM role), so there is nothing to inject",
            given: "kyverno",
            allowed: "values",
        });
    }
    if (kyverno.install && pullSecret.mode !== "kyverno") {
        problems.push({
            key: `${PROJECT}:registry.kyverno.install`,
            message: "installs Kyverno for registry.pullSecret.mode: kyverno, and the mode is values",
            given: true,
            allowed: "false, or registry.pullSecret.mode: kyverno",
        });
    }
    if (kyverno.install && !kyverno.version) {
        problems.push({
            key: `${PROJECT}:registry.kyverno.version`,
            message: "is required when registry.kyverno.install is true: the stack pins every chart it installs",
            allowed: "the exact version of the kyverno chart (https://kyverno.github.io/kyverno/)",
        });
    }
    return problems;
};
