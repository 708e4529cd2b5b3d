import * as fs from "node:fs";
import * as https from "node:https";
import type { AddressInfo } from "node:net";
import * as path from "node:path";
import type { Kube } from "./cluster";

/**
 * How the recovery suite ends a real `pulumi` run the way a lost CI runner or an OOM kill does,
 * at a point it chose: the CLI and every process it started (language host, plugins; the
 * kubernetes provider runs in its own process group, so a group signal misses it), found by a
 * variable they all inherit, are first stopped (SIGSTOP: a stopped process starts nothing new
 * and answers nothing), then killed (SIGKILL) together. Linux only (/proc).
 */

/** The variable every process of one run inherits: how its processes are found, even those reparented away from it. */
export const RUN_MARKER = "NVCF_E2E_RUN";

function processesOf(marker: string): number[] {
    const tag = `${RUN_MARKER}=${marker}\0`;
    const found: number[] = [];
    for (const entry of fs.readdirSync("/proc")) {
        if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
        try {
            if (fs.readFileSync(`/proc/${entry}/environ`, "latin1").includes(tag)) found.push(Number(entry));
        } catch {
            // Gone between the listing and the read, or another user's.
        }
    }
    return found;
}

/** Stops every process of the run (the CLI and all it started), until a pass finds no new one; returns them all. */
export function freezeRun(marker: string): number[] {
    const frozen = new Set<number>();
    for (;;) {
        const fresh = processesOf(marker).filter((pid) => !frozen.has(pid));
        if (fresh.length === 0) return [...frozen];
        for (const pid of fresh) {
            frozen.add(pid);
            try {
                process.kill(pid, "SIGSTOP");
            } catch {
                // Already gone.
            }
        }
    }
}

export function killAll(pids: readonly number[]): void {
    for (const pid of pids) {
        try {
            process.kill(pid, "SIGKILL");
        } catch {
            // Already gone.
        }
    }
}

/** The run's processes still running. */
export function survivors(marker: string): number[] {
    return processesOf(marker).filter(running);
}

/** Still running (a zombie waiting to be reaped is not). */
function running(pid: number): boolean {
    try {
        const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
        return !/^[ZX]/.test(stat.slice(stat.lastIndexOf(")") + 2));
    } catch {
        return false;
    }
}

/** One write of a Helm release record (a Secret labelled owner=helm), as the API server is about to store it. */
export interface RecordWrite {
    readonly operation: "CREATE" | "UPDATE" | "DELETE";
    readonly namespace: string;
    /** The release's name and the record's status, from the Secret's labels. */
    readonly release: string;
    readonly status: string;
}

/**
 * A validating admission webhook on 127.0.0.1 that the local API server calls before it stores
 * any Helm release record: the test sees each write as it happens and answers only when its
 * handler returns, so it can stop the run exactly between two of Helm's steps, or turn a write away.
 */
export class HelmRecordWebhook {
    /** Sees each write before it is stored; answering false turns it away. */
    onWrite?: (write: RecordWrite) => Promise<boolean | void> | boolean | void;
    private server?: https.Server;

    constructor(
        private readonly kube: Kube,
        /** The local API server's directory: its serving certificate (127.0.0.1) serves the webhook too. */
        private readonly clusterDir: string,
    ) {}

    async start(): Promise<void> {
        const cert = fs.readFileSync(path.join(this.clusterDir, "pki", "apiserver.crt"));
        const key = fs.readFileSync(path.join(this.clusterDir, "pki", "apiserver.key"));
        this.server = https.createServer({ cert, key }, (req, res) => {
            const chunks: Buffer[] = [];
            req.on("data", (c: Buffer) => chunks.push(c));
            req.on("end", async () => {
                const review = JSON.parse(Buffer.concat(chunks).toString("utf8"));
                const request = review.request;
                const labels = (request.object ?? request.oldObject)?.metadata?.labels ?? {};
                let allowed = true;
                try {
                    const answer = await this.onWrite?.({
                        operation: request.operation,
                        namespace: request.namespace,
                        release: labels.name ?? "",
                        status: labels.status ?? "",
                    });
                    allowed = answer !== false;
                } finally {
                    res.writeHead(200, { "Content-Type": "application/json" });
                    res.end(
                        JSON.stringify({
                            apiVersion: "admission.k8s.io/v1",
                            kind: "AdmissionReview",
                            response: {
                                uid: request.uid,
                                allowed,
                                ...(allowed ? {} : { status: { code: 403, message: "turned away by the end-to-end suite" } }),
                            },
                        }),
                    );
                }
            });
        });
        await new Promise<void>((resolve) => this.server!.listen(0, "127.0.0.1", resolve));
        const port = (this.server.address() as AddressInfo).port;
        const res = await this.kube.request("POST", "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations", {
            metadata: { name: "e2e-helm-records" },
            webhooks: [
                {
                    name: "helm-records.e2e.test",
                    admissionReviewVersions: ["v1"],
                    sideEffects: "None",
                    // A test that stopped listening must not block Helm.
                    failurePolicy: "Ignore",
                    timeoutSeconds: 30,
                    clientConfig: { url: `https://127.0.0.1:${port}/`, caBundle: cert.toString("base64") },
                    objectSelector: { matchLabels: { owner: "helm" } },
                    rules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE", "UPDATE", "DELETE"], resources: ["secrets"] }],
                },
            ],
        });
        if (res.status !== 201) throw new Error(`webhook configuration: ${res.status} ${res.text.slice(0, 300)}`);
        // The API server picks a new configuration up asynchronously: write a probe until the webhook sees one.
        const probe = "/api/v1/namespaces/default/secrets";
        let seen = false;
        const handler = this.onWrite;
        this.onWrite = (w) => {
            if (w.release === "e2e-webhook-probe") seen = true;
        };
        try {
            for (let i = 0; !seen; i++) {
                if (i === 300) throw new Error("the API server never called the webhook");
                const name = `e2e-webhook-probe-${i}`;
                await this.kube.request("POST", probe, { metadata: { name, labels: { owner: "helm", name: "e2e-webhook-probe" } } });
                await this.kube.request("DELETE", `${probe}/${name}`);
                if (!seen) await new Promise((r) => setTimeout(r, 100));
            }
        } finally {
            this.onWrite = handler;
        }
    }

    async stop(): Promise<void> {
        await this.kube
            .request("DELETE", "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/e2e-helm-records")
            .catch(() => undefined);
        this.server?.closeAllConnections();
        await new Promise((r) => (this.server ? this.server.close(r) : r(undefined)));
    }
}
