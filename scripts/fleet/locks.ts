import type { OperatorStack } from "../../lib/contracts/pulumi-operator";
import { locksInMessage, type LockOwner } from "../recover/locks";

/**
 * Who holds an environment's stack lock, as far as the cluster tells: the CLI's own message in
 * the last failed update (`the stack is currently locked by N lock(s)`, then one
 * `<lock>: created by <user>@<host> (pid <n>) at <time>` line per lock: pulumi/pulumi
 * pkg/backend/diy/lock.go checkForLock), or Pulumi Cloud's conflict. The backend itself is not
 * read: a fleet's backend is S3, PostgreSQL, Azure Blob, GCS or Pulumi Cloud (fleet/settings/urls.ts
 * refuses file://), which this command has no credentials for.
 */
export type LockReport = { readonly reported: true; readonly locks: readonly LockOwner[] } | { readonly reported: false };

export function lockReport(stack: OperatorStack | undefined): LockReport {
    const last = stack?.status?.lastUpdate;
    if (last?.state !== "failed" || last.message === undefined) return { reported: false };
    const locks = locksInMessage(last.message);
    return locks === undefined ? { reported: false } : { reported: true, locks };
}
