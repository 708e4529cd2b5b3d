import * as fs from "node:fs";
import * as path from "node:path";
import { parseAllDocuments } from "yaml";
import type { Kube } from "./cluster";
import { CHARTS } from "./stack-config";

/**
 * The CRDs scripts/e2e/build-tools.sh copies from their sources into `crds/`: `nvca/` (NVIDIA/nvcf
 * at the pinned commit: the nvca-operator chart's NVCFBackend, the operator's MiniService and
 * StorageRequest), `gateway-api/` (Gateway API v1.2.0, config/crd/experimental) and `kyverno/`
 * (Kyverno's ClusterPolicy). The suite's API server validates what the program and the suite
 * write against their real schemas and status subresources.
 */
export type CrdSet = "nvca" | "gateway-api" | "kyverno";

export function upstreamCrds(crds: string, set: CrdSet): any[] {
    const dir = path.join(crds, set);
    return fs
        .readdirSync(dir)
        .filter((f) => f.endsWith(".yaml"))
        .sort()
        .flatMap((f) => parseAllDocuments(fs.readFileSync(path.join(dir, f), "utf8")).map((d) => d.toJS()))
        .filter((o) => o?.kind === "CustomResourceDefinition");
}

/** Gateway API's experimental-install.yaml as the release builds it: the channel's CRDs in one file, written under `dir`. */
export function gatewayApiInstallFile(crds: string, dir: string): string {
    const dest = path.join(dir, "experimental-install.yaml");
    const sources = fs
        .readdirSync(path.join(crds, "gateway-api"))
        .filter((f) => f.endsWith(".yaml"))
        .sort();
    fs.writeFileSync(dest, sources.map((f) => fs.readFileSync(path.join(crds, "gateway-api", f), "utf8")).join("\n---\n"));
    return dest;
}

/** The fixture charts copied under `dir`, with Kyverno's real ClusterPolicy CRD in the kyverno chart's crds/, as the real chart ships it. */
export function chartsWithUpstreamCrds(crds: string, dir: string): string {
    const dest = path.join(dir, "charts");
    fs.cpSync(CHARTS, dest, { recursive: true });
    const kyvernoCrds = path.join(dest, "kyverno", "crds");
    fs.rmSync(kyvernoCrds, { recursive: true, force: true });
    fs.mkdirSync(kyvernoCrds);
    for (const f of fs.readdirSync(path.join(crds, "kyverno"))) fs.copyFileSync(path.join(crds, "kyverno", f), path.join(kyvernoCrds, f));
    return dest;
}

/** Creates each CRD (an existing one is kept) and waits until the API server serves it. */
export async function installCrds(kube: Kube, objs: readonly any[]): Promise<void> {
    const base = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
    for (const crd of objs) {
        const res = await kube.request("POST", base, crd);
        if (res.status !== 201 && res.status !== 409) throw new Error(`CRD ${crd.metadata.name}: ${res.status} ${res.text.slice(0, 300)}`);
    }
    for (const crd of objs) {
        const deadline = Date.now() + 30_000;
        for (;;) {
            const obj = await kube.get<any>(`${base}/${crd.metadata.name}`);
            if (obj?.status?.conditions?.some((c: any) => c.type === "Established" && c.status === "True")) break;
            if (Date.now() > deadline) throw new Error(`CRD ${crd.metadata.name} not established after 30 s`);
            await new Promise((r) => setTimeout(r, 100));
        }
    }
}
