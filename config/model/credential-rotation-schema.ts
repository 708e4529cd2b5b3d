import { z } from "zod";

/**
 * `credentialRotation`: how `pulumi up` keeps the credentials NVIDIA's OpenBao migrations write
 * only once equal to the stack file: it writes a changed sidecar image-pull credential into
 * OpenBao, adds a master encryption key when `mekRotations` goes up, replaces the shared NATS
 * NKey when `natsNkeyRotations` goes up, and restarts the Deployments that read them.
 */
export const credentialRotationSchema = z
    .strictObject({
        /** false: a changed key reaches only the migrations' values, which keep the first value (NVIDIA's behaviour). */
        enabled: z.boolean().default(true),
        /** Per restarted Deployment: how long its rollout may take. */
        timeoutSeconds: z.number().int().min(10).max(3600).default(600),
        /** The pause between two looks at a rollout. */
        pollSeconds: z.number().int().min(1).max(60).default(5),
        /** How many MEK rotations the stack asked for: raise it by one to add a new master encryption key and make it current. */
        mekRotations: z.number().int().min(0).max(1000).default(0),
        /** How many shared NATS NKey rotations the stack asked for: raise it by one, in token mode, to replace the key. */
        natsNkeyRotations: z.number().int().min(0).max(1000).default(0),
        /** Rotate the NKey even while the NATS servers show (or cannot rule out) a worker holding it. */
        natsNkeyForce: z.boolean().default(false),
    })
    .prefault({});

export type CredentialRotationConfig = z.infer<typeof credentialRotationSchema>;
