import { BUNDLE_BASE } from "./model/bundle-base";
import { isPlainObject } from "./model/deep-merge";
import { PROJECT } from "./model/project";
import type { RawConfig } from "./settings";

/**
 * Warnings for settings a stack leaves unset whose default the bundle allows but an environment
 * rarely wants. Not errors: NVIDIA's Helmfile installs with the same default, and a throwaway
 * cluster may be fine with it; the warning at preview says which default was used and what to set.
 */
export function unsetSettingWarnings(values: RawConfig["values"]): string[] {
    return domainSet(values.controlPlane) ? [] : [domainWarning()];
}

/** Whether the stack file names a domain itself (any value: a wrong one is the schema's to reject). */
function domainSet(controlPlane: unknown): boolean {
    const global = isPlainObject(controlPlane) ? controlPlane.global : undefined;
    return isPlainObject(global) && global.domain !== undefined;
}

function domainWarning(): string {
    const fallback = String((BUNDLE_BASE.global as Record<string, unknown>).domain);
    return (
        `${PROJECT}:controlPlane.global.domain is not set, so the routes use the bundle's default ${fallback} ` +
        `(api.${fallback}, api-keys.${fallback}, nats.${fallback}, ...), which no client outside the cluster resolves. ` +
        "Set the domain your Gateway serves: pulumi config set --path controlPlane.global.domain <domain>"
    );
}
