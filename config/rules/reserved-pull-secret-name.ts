import { PROJECT } from "../model/keys";
import { RESERVED_PULL_SECRET_NAMES } from "../model/compute-plane-schema";
import type { SettingsRule } from "./rule";

/** Once there is a compute plane, the stack's pull secret is not a name the NVCA mirror reserves. */
export const reservedPullSecretName: SettingsRule = (settings) => {
    const pullSecret = settings.registry.pullSecret.name;
    if (settings.computePlanes.length > 0 && (RESERVED_PULL_SECRET_NAMES as readonly string[]).includes(pullSecret)) {
        return [
            {
                key: `${PROJECT}:registry.pullSecret.name`,
                message: "the NVCA mirror reserves this pull secret name",
                given: pullSecret,
                allowed: "e.g. nvcr-pull-secret",
            },
        ];
    }
    return [];
};
