import type * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import { clusterSchema, controlPlaneSchema, openbaoAccessSchema, registrySchema, releaseOverrideSchema } from "./schema";
import { computePlanesSchema } from "./compute-plane-schema";
import { dnsSchema } from "./aws-schema";
import { checksSchema } from "./checks-schema";
import { openbaoRolloutSchema } from "./openbao-rollout-schema";
import { credentialRotationSchema } from "./credential-rotation-schema";
import { bundleSchema } from "./bundle-schema";

export { PROJECT } from "./project";

/** The structured (non-secret) keys, each with its schema; a parse gives them in this order. */
export const structuredSettingsSchema = z.object({
    controlPlane: controlPlaneSchema,
    releases: z.record(z.string(), releaseOverrideSchema).default({}),
    cluster: clusterSchema,
    registry: registrySchema,
    computePlanes: computePlanesSchema,
    openbaoAccess: openbaoAccessSchema,
    openbaoRollout: openbaoRolloutSchema,
    credentialRotation: credentialRotationSchema,
    dns: dnsSchema,
    checks: checksSchema,
    bundle: bundleSchema,
});

/** The structured keys, in the schema's order. */
export const STRUCTURED_KEYS = structuredSettingsSchema.keyof().options;
export type StructuredKey = (typeof STRUCTURED_KEYS)[number];

/** Secret keys: read only through getSecret, so they stay Pulumi secrets end to end. */
export const SECRET_KEYS = [
    "ngcApiKey",
    "accountRegistryKey",
    "sidecarRegistryKey",
    "chartRegistryPassword",
    "cassandraPassword",
    "kubeconfig",
    "computePlaneKubeconfigs",
    "nvcfAdminToken",
    "openbaoToken",
] as const;
export type SecretKey = (typeof SECRET_KEYS)[number];

/** The validated stack config: every structured key as its schema parses it, plus the secrets. */
export type Settings = Readonly<z.infer<typeof structuredSettingsSchema>> & {
    /** Clusters with an entry in the `computePlaneKubeconfigs` secret. */
    readonly computePlaneKubeconfigNames: readonly string[];
    readonly secrets: Readonly<Partial<Record<SecretKey, pulumi.Output<string>>>>;
};
