/**
 * The drain gate's optional half: the function queues the operator names, read through the NVCF
 * API (`GET /v2/nvcf/queues/functions/{functionId}[/versions/{versionId}]`, an API key with the
 * `queue_details` scope). Each queue's `queueDepth` must be zero; a missing answer, or a queue
 * without a depth, blocks, as the runbook says.
 */
import { QUEUE_DETAILS, queueDetailsPath, type QueueDto } from "../../lib/nvcf-api/contract";
import type { CheckResult } from "../../lib/health/checks";
import { excerpt, httpRequest } from "../../lib/http/client";

/** A function, or one version of it, whose queue must be empty. */
export interface QueueRef {
    readonly functionId: string;
    readonly versionId?: string;
}

export interface QueueAccess {
    /** The NVCF API's base URL, e.g. http://api.<domain>. */
    readonly baseUrl: string;
    readonly hostHeader?: string;
    /** Never logged. */
    readonly apiKey: string;
    readonly timeoutMs?: number;
}

const UUID = "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}";

/** `<functionId>` or `<functionId>:<versionId>`, both UUIDs as the API's path variables are. */
export function parseQueueRef(text: string): QueueRef | undefined {
    const m = new RegExp(`^(${UUID})(?::(${UUID}))?$`).exec(text);
    return m ? { functionId: m[1], ...(m[2] ? { versionId: m[2] } : {}) } : undefined;
}

export async function functionQueuesEmpty(access: QueueAccess, refs: readonly QueueRef[]): Promise<CheckResult> {
    const name = "function-queues";
    const fix =
        "keep submissions paused until every queue is empty (nvcf-cli function queue status <function> <version>), then run the upgrade again";
    const full: string[] = [];
    for (const ref of refs) {
        const label = ref.versionId ? `${ref.functionId}/${ref.versionId}` : ref.functionId;
        const path = queueDetailsPath(ref.functionId, ref.versionId);
        let status: number;
        let text: string;
        try {
            const res = await httpRequest({
                method: "GET",
                url: `${access.baseUrl.replace(/\/$/, "")}${path}`,
                ...(access.hostHeader ? { hostHeader: access.hostHeader } : {}),
                headers: { Authorization: `Bearer ${access.apiKey}`, Accept: "application/json" },
                timeoutMs: access.timeoutMs ?? 15_000,
                retries: 1,
            });
            ({ status, body: text } = res);
        } catch (error) {
            return { name, ok: false, detail: `the queue of ${label} could not be read: ${(error as Error).message}`, fix };
        }
        let body: { queues?: unknown } | undefined;
        try {
            body = JSON.parse(text) as { queues?: unknown };
        } catch {
            body = undefined;
        }
        if (status !== 200 || !Array.isArray(body?.queues)) {
            const why = status === 401 || status === 403 ? ` (the key needs the ${QUEUE_DETAILS.scope} scope)` : "";
            return {
                name,
                ok: false,
                detail: `the queue of ${label} answered HTTP ${status}${why}: ${excerpt(text, 160) || "no body"}`,
                fix,
            };
        }
        for (const q of body.queues as Partial<QueueDto>[]) {
            const version = q.functionVersionId ?? ref.versionId ?? "?";
            // Never read a missing depth as empty: that is how a gate passes over queued requests.
            if (typeof q.queueDepth !== "number")
                return {
                    name,
                    ok: false,
                    detail: `the queue of ${ref.functionId}/${version} answered without a queueDepth: ${excerpt(JSON.stringify(q), 160)}`,
                    fix,
                };
            if (q.queueDepth !== 0) full.push(`${ref.functionId}/${version}: ${q.queueDepth}`);
        }
    }
    return full.length === 0
        ? { name, ok: true, detail: `${refs.length} function queue${refs.length === 1 ? " is" : "s are"} empty`, fix: "" }
        : { name, ok: false, detail: `not empty: ${full.join(", ")}`, fix };
}
