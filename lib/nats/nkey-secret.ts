import { getObject, type Kube } from "../kubernetes/client";
import { NATS, NKEY_SECRET } from "./contract";

/** The Secret's annotations that say which rotation made its key, and when (the time its readers must have started after). */
export const NKEY_ROTATION_MARK = "nvcf-self-managed/nats-nkey-rotation";
export const NKEY_ROTATED_AT = "nvcf-self-managed/nats-nkey-rotated-at";

export const NKEY_SECRET_PATH = `/api/v1/namespaces/${NATS.namespace}/secrets/${NKEY_SECRET.name}`;
export const NKEY_SECRET_NAME = `secret ${NATS.namespace}/${NKEY_SECRET.name}`;

/** The nats chart's shared worker NKey Secret, as the rotation and the status read it. */
export interface NkeySecret {
    readonly resourceVersion: string;
    readonly seed: string;
    readonly publicKey: string;
    /** The rotation that made the key; 0 for the chart's own. */
    readonly mark: number;
    /** When that rotation wrote it; "" for the chart's own. */
    readonly rotatedAt: string;
}

/** The Secret, or undefined when it does not exist; throws when it does not hold a user NKey. */
export async function readNkeySecret(kube: Kube): Promise<NkeySecret | undefined> {
    const s = await getObject(kube, NKEY_SECRET_PATH);
    if (!s) return undefined;
    const field = (k: string) => (typeof s.data?.[k] === "string" ? Buffer.from(s.data[k], "base64").toString("utf8") : "");
    const seed = field(NKEY_SECRET.seed);
    const publicKey = field(NKEY_SECRET.publicKey);
    if (!seed.startsWith("SU") || !publicKey.startsWith("U")) {
        throw new Error(`${NKEY_SECRET_NAME} does not hold a user NKey (${NKEY_SECRET.seed} SU…, ${NKEY_SECRET.publicKey} U…)`);
    }
    const annotations = s.metadata?.annotations ?? {};
    return {
        resourceVersion: String(s.metadata?.resourceVersion ?? ""),
        seed,
        publicKey,
        mark: Number(annotations[NKEY_ROTATION_MARK] ?? 0) || 0,
        rotatedAt: String(annotations[NKEY_ROTATED_AT] ?? ""),
    };
}
