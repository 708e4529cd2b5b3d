import type { ControlPlaneRule } from "./rule";

/** openbao-server's migrations copy the nats release's nkey Secrets; without NATS they fail. */
export const openbaoNeedsNats: ControlPlaneRule = (cp) => {
    if (cp.openbao.enabled && !cp.nats.enabled) {
        return [
            {
                path: "nats.enabled",
                message: "openbao-server needs the nats release's Secrets (its migrations copy the NATS nkeys)",
                given: false,
                allowed: "true while openbao.enabled is true",
            },
        ];
    }
    return [];
};
