import type { Kube } from "../kubernetes/client";
import { NATS, NKEY_SECRET } from "../nats/contract";
import { NKEY_SECRET_NAME, readNkeySecret, type NkeySecret } from "../nats/nkey-secret";
import { workersHoldingKey } from "../nats/workers";
import type { CheckResult } from "./check-result";
import { messageOf } from "../text/message-of";

/**
 * In token mode: which workers still hold the shared NKey, the fact the control-plane operations
 * wait on before its rotation (`credentialRotation.natsNkeyRotations`). Information, never a
 * failure: a worker started before the switch keeps working until it is replaced; what cannot be
 * looked at is inconclusive.
 */
export const NKEY_CHECK = "nats-shared-nkey";

const inconclusive = (detail: string, fix: string): CheckResult => ({ name: NKEY_CHECK, ok: false, inconclusive: true, detail, fix });

export async function sharedNkeyHolders(kube: Kube): Promise<CheckResult> {
    let secret: NkeySecret | undefined;
    try {
        secret = await readNkeySecret(kube);
    } catch (err) {
        // Information only: a read that throws is inconclusive, never a failure of the gate.
        const reason = messageOf(err);
        return inconclusive(
            `the shared NKey's holders could not be looked for: ${reason}`,
            `kubectl -n ${NATS.namespace} get secret ${NKEY_SECRET.name}`,
        );
    }
    if (!secret) {
        return inconclusive(
            `${NKEY_SECRET_NAME} does not exist, so the shared NKey's holders were not looked for`,
            `kubectl -n ${NATS.namespace} get secrets`,
        );
    }
    const look = await workersHoldingKey(kube, secret.publicKey);
    if (!look.known) {
        return inconclusive(
            `whether a worker still holds the shared NKey cannot be known: ${look.why}`,
            `kubectl -n ${NATS.namespace} get pods; the kubeconfig needs get on pods/proxy there`,
        );
    }
    const since = secret.mark > 0 ? `rotated ${secret.rotatedAt} (rotation ${secret.mark})` : "the chart's own, never rotated";
    if (look.held.length === 0) {
        return {
            name: NKEY_CHECK,
            ok: true,
            detail: `no worker holds the shared NKey on ${look.servers} NATS server(s); the key is ${since}`,
            fix: "",
        };
    }
    const first = look.held[0];
    return {
        name: NKEY_CHECK,
        ok: true,
        detail:
            `${look.held.length} worker connection(s) may still hold the shared NKey (${first.name} on ${first.server}, since ${first.start}` +
            `${look.held.length > 1 ? ", …" : ""}): rotate it with credentialRotation.natsNkeyRotations once they are replaced; the key is ${since}`,
        fix: "",
    };
}
