import type { CheckResult } from "../../lib/health/checks";
import { apiServer, type KubeAccess } from "../../lib/cluster-access/access";
import { getObject, httpKube, type Kube } from "../../lib/kubernetes/client";
import { parseReceipt, RECEIPT, type ReceiptContent } from "./receipt";
import { STATEFUL_RELEASES, type InstalledState } from "./restart-warning";

/** The receipt on the control plane's cluster; undefined when there is none this program wrote. */
export async function readReceipt(kube: Kube): Promise<ReceiptContent | undefined> {
    return parseReceipt((await getObject(kube, `/api/v1/namespaces/${RECEIPT.namespace}/configmaps/${RECEIPT.name}`))?.data);
}

/**
 * NATS, OpenBao and Cassandra as the receipt says they were installed: the chart version, and
 * the values digest when the receipt keeps one. Undefined when there is no receipt.
 */
export function installedStatefulReleases(receipt: ReceiptContent | undefined): Record<string, InstalledState> | undefined {
    if (!receipt) return undefined;
    return Object.fromEntries(
        Object.keys(STATEFUL_RELEASES).flatMap((name) => {
            const state = receipt.statefulReleases?.[name];
            if (state) return [[name, state]];
            const version = receipt.controlPlane[name];
            return version === undefined ? [] : [[name, { version }]];
        }),
    );
}

/**
 * What the preview compares with: the receipt on the control plane's cluster, read with the
 * kubeconfig the provider uses. The stack's own checkpoint is never read, since the engine may be
 * writing it. Bounded: an unreachable cluster costs the warning, never the preview.
 */
export async function readInstalledStatefulReleases(
    access: KubeAccess,
    timeoutSeconds = 10,
): Promise<Record<string, InstalledState> | undefined> {
    const kube = httpKube(await apiServer(access), { timeoutMs: timeoutSeconds * 1000, retries: 1, retryDelayMs: 500 });
    return installedStatefulReleases(await readReceipt(kube));
}

/** Which bundle release the environment runs (its receipt), against the one the stack selects: what `npm run status` shows. */
export async function bundleReleaseCheck(kube: Kube, selected: string): Promise<CheckResult> {
    const name = "bundle-release";
    const receipt = await readReceipt(kube);
    if (!receipt) {
        return {
            name,
            ok: false,
            detail: `no receipt ${RECEIPT.namespace}/${RECEIPT.name}: the environment was installed before receipts, or its last pulumi up did not finish; the stack selects ${selected}`,
            fix: "pulumi up writes it once every release and gate is done; for an older environment, npm run upgrade -- --stack <name> --from <the release it runs>",
        };
    }
    return receipt.bundleRelease === selected
        ? { name, ok: true, detail: `runs bundle release ${selected} (receipt ${RECEIPT.namespace}/${RECEIPT.name})`, fix: "" }
        : {
              name,
              ok: false,
              detail: `runs bundle release ${receipt.bundleRelease} (receipt ${RECEIPT.namespace}/${RECEIPT.name}); the stack selects ${selected}`,
              fix: "npm run upgrade -- --stack <name> moves it in the runbook's stages (--plan shows them first)",
          };
}
