import { excerpt } from "../http/client";
import { getObject, type Kube } from "../kubernetes/client";
import type { HookRun } from "./helm-tests";
import type { PlatformRun } from "./platform";

/**
 * The last smoke run, kept on the control plane's cluster so `npm run status` reads it without the
 * stack's state: a ConfigMap beside the upgrade receipt, written by `pulumi up` after each run
 * (passed or not) and deleted with the stack.
 */
export const SMOKE_RECORD = { name: "nvcf-smoke-result", namespace: "nvcf" } as const;

export interface SmokeRecord {
    /** ISO 8601, when the run ended. */
    readonly time: string;
    readonly helmTests: readonly HookRun[];
    readonly platform?: PlatformRun;
}

const path = () => `/api/v1/namespaces/${SMOKE_RECORD.namespace}/configmaps/${SMOKE_RECORD.name}`;

/** The ConfigMap's data: each part as JSON, so `kubectl get -o yaml` shows it as it is. */
export function recordData(record: SmokeRecord): Record<string, string> {
    return {
        time: record.time,
        helmTests: JSON.stringify(record.helmTests),
        ...(record.platform ? { platform: JSON.stringify(record.platform) } : {}),
    };
}

/** The record read back; undefined when the data is not one this program wrote. */
export function parseRecord(data: Readonly<Record<string, string>> | undefined): SmokeRecord | undefined {
    if (!data?.time) return undefined;
    try {
        const helmTests = JSON.parse(data.helmTests ?? "[]") as unknown;
        const platform = data.platform ? (JSON.parse(data.platform) as unknown) : undefined;
        if (!Array.isArray(helmTests)) return undefined;
        if (platform !== undefined && (typeof platform !== "object" || platform === null || Array.isArray(platform))) return undefined;
        return { time: data.time, helmTests: helmTests as HookRun[], ...(platform ? { platform: platform as PlatformRun } : {}) };
    } catch {
        return undefined;
    }
}

export async function readRecord(kube: Kube): Promise<SmokeRecord | undefined> {
    return parseRecord((await getObject(kube, path()))?.data);
}

/** Server-side apply: creates the ConfigMap or replaces its data, whoever wrote it last. */
export async function writeRecord(kube: Kube, record: SmokeRecord, fieldManager: string): Promise<void> {
    const object = {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: SMOKE_RECORD.name, namespace: SMOKE_RECORD.namespace },
        data: recordData(record),
    };
    const res = await kube.request("PATCH", `${path()}?fieldManager=${fieldManager}&force=true`, object, "application/apply-patch+yaml");
    if (res.status >= 300)
        throw new Error(`writing ${SMOKE_RECORD.namespace}/${SMOKE_RECORD.name} answered HTTP ${res.status}: ${excerpt(res.text, 200)}`);
}

export async function deleteRecord(kube: Kube): Promise<void> {
    const res = await kube.request("DELETE", path());
    if (res.status !== 404 && res.status >= 300)
        throw new Error(`deleting ${SMOKE_RECORD.namespace}/${SMOKE_RECORD.name} answered HTTP ${res.status}: ${excerpt(res.text, 200)}`);
}
