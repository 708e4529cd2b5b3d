import type { ControlPlaneRule } from "./rule";

/** The JWT plugin lifecycle is a mode of the openbao-server release: without it there is nothing to switch. */
export const jwtPluginLifecycleNeedsOpenbao: ControlPlaneRule = (cp) => {
    const mode = cp.openbao.jwtPluginLifecycle.mode;
    if (mode === undefined || cp.openbao.enabled) return [];
    return [
        {
            path: "openbao.jwtPluginLifecycle.mode",
            message: "the JWT plugin lifecycle is OpenBao's, and openbao.enabled is false",
            given: mode,
            allowed: "unset while openbao.enabled is false",
        },
    ];
};
