import { keyPath } from "../model/errors";
import { PROJECT } from "../model/keys";
import type { SettingsRule } from "./rule";

/** An override under `releases` names a release of the catalog. */
export const releaseOverridesKnown: SettingsRule = (settings, releaseNames) =>
    Object.keys(settings.releases)
        .filter((name) => !releaseNames.includes(name))
        .map((name) => ({
            key: keyPath(`${PROJECT}:releases`, [name]),
            message: "unknown release",
            given: name,
            allowed: releaseNames.join(", "),
        }));
