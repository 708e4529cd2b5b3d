/**
 * The fakes answer only what the real systems answer: every object a fake API server is given
 * passes through `conform`, which throws on a value of an outside system that has no row in
 * docs/contracts.md (the rows' values are the constants of the contracts in lib/).
 */
import { AGENT_STATUS, NVCF_BACKEND } from "../../lib/contracts/nvca";
import { HELM_RELEASE_STATUS, HELM_SECRET } from "../../lib/contracts/helm";

const NVCF_BACKEND_PATH = new RegExp(`^/apis/${NVCF_BACKEND.group}/${NVCF_BACKEND.version}/namespaces/[^/]+/${NVCF_BACKEND.plural}/`);
const HELM_SECRET_PATH = new RegExp(`^/api/v1/namespaces/[^/]+/secrets/${HELM_SECRET.namePrefix.replace(/\./g, "\\.")}`);

function oneOf(what: string, value: unknown, allowed: readonly string[]): void {
    if (value !== undefined && !allowed.includes(value as string))
        throw new Error(
            `a fake answered ${what} ${JSON.stringify(value)}, which is not in docs/contracts.md (allowed: ${allowed.join(", ")})`,
        );
}

/** Throws when `obj`, stored at API path `path`, carries an outside value the contract does not list. */
export function conform(path: string, obj: unknown): void {
    const o = obj as { status?: { agentStatus?: unknown }; metadata?: { labels?: Record<string, unknown> }; type?: unknown };
    if (NVCF_BACKEND_PATH.test(path)) oneOf("NVCFBackend status.agentStatus", o?.status?.agentStatus, Object.values(AGENT_STATUS));
    if (HELM_SECRET_PATH.test(path)) {
        oneOf("Helm release Secret type", o?.type, [HELM_SECRET.type]);
        oneOf("Helm release label status", o?.metadata?.labels?.status, HELM_RELEASE_STATUS);
    }
}
