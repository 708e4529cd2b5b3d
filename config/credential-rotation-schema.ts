import { z } from "zod";

/**
 * `credentialRotation`: how `pulumi up` keeps the credentials NVIDIA's OpenBao migrations write
 * only once (the sidecar image-pull credential) equal to the stack file: it writes a changed one
 * into OpenBao and restarts the Deployments that read it.
 */
export const credentialRotationSchema = z
    .strictObject({
        /** false: a changed key reaches only the migrations' values, which keep the first value (NVIDIA's behaviour). */
        enabled: z.boolean().default(true),
        /** Per restarted Deployment: how long its rollout may take. */
        timeoutSeconds: z.number().int().min(10).max(3600).default(600),
        /** The pause between two looks at a rollout. */
        pollSeconds: z.number().int().min(1).max(60).default(5),
    })
    .prefault({});

export type CredentialRotationConfig = z.infer<typeof credentialRotationSchema>;
