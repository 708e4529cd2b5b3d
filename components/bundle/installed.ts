import type { CheckResult } from "../health/checks";
import { getObject, type Kube } from "../../lib/kubernetes/client";
import { parseReceipt, RECEIPT, type ReceiptContent } from "./receipt";

/** The receipt on the control plane's cluster; undefined when there is none this program wrote. */
export async function readReceipt(kube: Kube): Promise<ReceiptContent | undefined> {
    return parseReceipt((await getObject(kube, `/api/v1/namespaces/${RECEIPT.namespace}/configmaps/${RECEIPT.name}`))?.data);
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
