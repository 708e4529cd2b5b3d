import { z } from "zod";

/**
 * `openbaoRollout`: how `pulumi up` replaces OpenBao's members after a change to their pod
 * template. Its StatefulSet uses `OnDelete`, so a Helm upgrade alone leaves every member on the
 * old template.
 */
export const openbaoRolloutSchema = z
    .strictObject({
        /** Replace the members, standbys first and the leader last after a step-down; false leaves them on the old template. */
        enabled: z.boolean().default(true),
        /** Per member: how long its replacement may take to be Ready, unsealed and joined (and a new leader to be elected). */
        memberTimeoutSeconds: z.number().int().min(10).max(3600).default(600),
        /** The pause between two looks at a member that is not there yet. */
        pollSeconds: z.number().int().min(1).max(60).default(5),
    })
    .prefault({});

export type OpenBaoRolloutConfig = z.infer<typeof openbaoRolloutSchema>;
