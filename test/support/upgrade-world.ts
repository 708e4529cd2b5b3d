/**
 * A world for the upgrade command's unit tests, in-process and fast: a cluster (FakeKubeApi's
 * objects and Helm records, plus writes and the pod-proxy answers of NATS and OpenBao as their
 * documentation gives them), and an engine that applies a targeted update to that cluster as
 * Pulumi and Helm would (a release's new revision at its new version, the receipt).
 */
import { findBundleRelease, type BundleRelease } from "../../components/bundle/bundle-releases";
import { RECEIPT, receiptData } from "../../components/bundle/receipt";
import type { Kube, KubeAnswer } from "../../lib/kubernetes/client";
import type { Engine } from "../../scripts/upgrade/engine";
import type { PlannedStep } from "../../scripts/upgrade/stages";
import { FakeKubeApi } from "./fake-kube-api";
import type { RecordedResource } from "./harness";
import type { HelmReleaseStatus } from "../../lib/contracts/helm";
import type { JszStream } from "../../lib/nats/contract";

/** Bundle release `name`: the pinned one's versions with some charts bumped. */
export function fixtureRelease(name: string, bumps: Record<string, string> = {}, images: Record<string, string> = {}): BundleRelease {
    const pinned = findBundleRelease("0.8.0")!;
    const pick = (charts: Readonly<Record<string, string>>) =>
        Object.fromEntries(Object.entries(charts).map(([k, v]) => [k, bumps[k] ?? v]));
    return {
        release: name,
        source: "a test fixture",
        controlPlane: { charts: pick(pinned.controlPlane.charts) },
        computePlane: {
            charts: pick(pinned.computePlane.charts),
            images: { ...pinned.computePlane.images, ...images } as BundleRelease["computePlane"]["images"],
        },
    };
}

/** A JetStream stream as `/jsz?accounts=true&streams=true&config=true` details it. */
export function stream(name: string, messages: number, storage: JszStream["config"]["storage"] = "memory", replicas = 1): JszStream {
    return { name, config: { name, storage, num_replicas: replicas }, state: { messages, bytes: messages * 100 } };
}

type Handler = (path: string, query: URLSearchParams) => KubeAnswer | undefined;

/** FakeKubeApi as an in-process Kube that also stores writes and answers pod-proxy calls from handlers. */
export class WorldKube implements Kube {
    readonly server = "https://world:6443";
    readonly api = new FakeKubeApi();
    readonly calls: string[] = [];
    readonly proxies: { pattern: RegExp; handler: Handler }[] = [];

    proxy(pattern: RegExp, handler: Handler): this {
        this.proxies.push({ pattern, handler });
        return this;
    }

    async request(method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE", path: string, body?: unknown): Promise<KubeAnswer> {
        this.calls.push(`${method} ${path}`);
        const [bare, query = ""] = path.split("?");
        const reply = (status: number, b: unknown): KubeAnswer => ({ status, body: b, text: JSON.stringify(b) });
        const proxy = this.proxies.find((p) => p.pattern.test(bare));
        if (proxy) return proxy.handler(bare, new URLSearchParams(query)) ?? reply(503, { message: "no endpoints available" });
        if (method === "PUT") {
            if (!this.api.objects.has(bare)) return reply(404, { kind: "Status", code: 404 });
            this.api.put(bare, body);
            return reply(200, body);
        }
        if (method === "POST" && !bare.endsWith("/selfsubjectaccessreviews")) {
            const name = (body as { metadata?: { name?: string } }).metadata?.name;
            this.api.put(`${bare}/${name}`, body);
            return reply(201, body);
        }
        const [status, answer] = this.api.answer(method, path, `Bearer ${this.api.token}`);
        return reply(status, answer);
    }
}

/** One resource of the stack as the fake engine knows it: its URN, and for a release its versions. */
export interface WorldResource {
    readonly urn: string;
    readonly type: string;
    /** The GPU cluster it belongs to, if any. */
    readonly plane?: string;
    readonly release?: {
        readonly name: string;
        readonly namespace: string;
        readonly chart: string;
        readonly from: string;
        readonly to: string;
    };
    /** Whether it differs from what is deployed (a release: at `from`). */
    pending: boolean;
}

/** The stack's resources of a mock run, with each release's versions in `from` and `to`. */
export function worldResources(
    resources: readonly RecordedResource[],
    planes: readonly string[],
    version: (release: { name: string; plane?: string }, bundle: BundleRelease) => string | undefined,
    from: BundleRelease,
    to: BundleRelease,
): WorldResource[] {
    return resources.map((r) => {
        const plane = planes.find((p) => r.name.startsWith(`compute-plane-${p}-`));
        const where = plane ? { plane } : {};
        if (r.type !== "kubernetes:helm.sh/v3:Release") {
            return { urn: r.urn, type: r.type, ...where, pending: r.urn.endsWith("::bundle-receipt") && from.release !== to.release };
        }
        const name = String(r.inputs.name);
        const release = {
            name,
            namespace: String(r.inputs.namespace),
            chart: String(r.inputs.chart).split("/").pop()!,
            from: version({ name, ...where }, from) ?? String(r.inputs.version),
            to: version({ name, ...where }, to) ?? String(r.inputs.version),
        };
        return { urn: r.urn, type: r.type, ...where, release, pending: release.from !== release.to };
    });
}

/** An engine over the world: previews list the pending resources, an update deploys them. */
export class WorldEngine implements Engine {
    readonly ups: string[][] = [];
    readonly previews: (readonly string[] | undefined)[] = [];
    /** Makes the update of a target fail, as the engine reports it. */
    failUp?: (targets: readonly string[]) => string | undefined;
    /** Runs after each update (a test changes the world there). */
    afterUp?: (targets: readonly string[]) => void;
    private revisions = new Map<string, number>();

    constructor(
        readonly kube: WorldKube,
        readonly resources: WorldResource[],
        readonly to: BundleRelease,
    ) {
        for (const r of resources) if (r.release) this.record(r.release, r.release.from);
    }

    /** A Helm release record at a version (a new revision each time). */
    record(r: NonNullable<WorldResource["release"]>, version: string, status: HelmReleaseStatus = "deployed"): void {
        const key = `${r.namespace}/${r.name}`;
        const revision = (this.revisions.get(key) ?? 0) + 1;
        this.revisions.set(key, revision);
        this.kube.api.putRelease({ name: r.name, namespace: r.namespace, revision, chart: r.chart, version, status });
    }

    revision(name: string): number {
        const r = this.resources.find((x) => x.release?.name === name)!.release!;
        return this.revisions.get(`${r.namespace}/${r.name}`) ?? 0;
    }

    async preview(targets?: readonly string[]): Promise<PlannedStep[]> {
        this.previews.push(targets);
        return this.resources
            .filter((r) => r.pending && (!targets || targets.includes(r.urn)))
            .map((r) => ({
                urn: r.urn,
                type: r.type,
                op: "update",
                ...(r.release ? { release: r.release.name, oldVersion: r.release.from, newVersion: r.release.to } : {}),
            }));
    }

    async up(targets: readonly string[], say: (line: string) => void): Promise<void> {
        this.ups.push([...targets]);
        const failure = this.failUp?.(targets);
        if (failure) throw new Error(`error: ${failure}\nerror: update failed`);
        for (const urn of targets) {
            const r = this.resources.find((x) => x.urn === urn);
            if (!r) throw new Error(`error: no resource ${urn}`);
            if (r.release) this.record(r.release, r.release.to);
            if (urn.endsWith("::bundle-receipt")) this.writeReceipt();
            r.pending = false;
            say(`update ${urn}: done`);
        }
        this.afterUp?.(targets);
    }

    async config(): Promise<string | undefined> {
        return undefined;
    }

    /** What the program's receipt says once its update ran: every release at its deployed version. */
    writeReceipt(bundle: string = this.to.release): void {
        const controlPlane: Record<string, string> = {};
        const computePlanes: Record<string, Record<string, string>> = {};
        for (const r of this.resources) {
            if (!r.release) continue;
            const version = r.pending ? r.release.from : r.release.to;
            if (r.plane) (computePlanes[r.plane] ??= {})[r.release.name] = version;
            else controlPlane[r.release.name] = version;
        }
        this.kube.api.put(`/api/v1/namespaces/${RECEIPT.namespace}/configmaps/${RECEIPT.name}`, {
            metadata: { name: RECEIPT.name, namespace: RECEIPT.namespace },
            data: receiptData({ bundleRelease: bundle, controlPlane, computePlanes }),
        });
    }
}
