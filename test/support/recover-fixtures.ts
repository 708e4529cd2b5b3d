import type { PendingOperation, StateResource } from "../../scripts/recover/state";

/** Checkpoint pieces shaped as `pulumi stack export --show-secrets` prints them. */

export const URN = (type: string, name: string) => `urn:pulumi:dev::nvcf-self-managed::nvcf:control-plane:ControlPlane$${type}::${name}`;

/** A secret with its plaintext shown, as the export gives it. */
export const secret = (value: unknown) => ({
    "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270",
    plaintext: JSON.stringify(value),
});

export const PROVIDER_REF = `${URN("pulumi:providers:kubernetes", "control-plane")}::prov-1`;

export function helmRelease(name: string, namespace: string): StateResource {
    return {
        urn: URN("kubernetes:helm.sh/v3:Release", `control-plane-${name}`),
        type: "kubernetes:helm.sh/v3:Release",
        custom: true,
        provider: PROVIDER_REF,
        inputs: { name, namespace, chart: `/charts/${name}`, version: "0.20.1", timeout: 900, values: secret({ password: "s3cret" }) },
    };
}

export function object(kind: string, name: string, namespace?: string, apiVersion = "v1"): StateResource {
    const group = apiVersion.includes("/") ? apiVersion : `core/${apiVersion}`;
    return {
        urn: URN(`kubernetes:${group}:${kind}`, `obj-${name}`),
        type: `kubernetes:${group}:${kind}`,
        custom: true,
        provider: PROVIDER_REF,
        inputs: { apiVersion, kind, metadata: { name, ...(namespace ? { namespace } : {}) } },
    };
}

export const op = (type: PendingOperation["type"], resource: StateResource): PendingOperation => ({ type, resource });
