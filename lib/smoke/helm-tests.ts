import { HELM_HOOK } from "../contracts/helm";
import type { HelmHook, InstalledRelease } from "../health/helm-releases";
import { excerpt } from "../http/client";
import type { Kube } from "../kubernetes/client";
import { discovery } from "../kubernetes/discovery";
import { loadAllYaml } from "../kubernetes/yaml";

/** What one test hook did: the outcome of its Pod (or Job), when, and why it failed. */
export interface HookRun {
    readonly release: string;
    readonly namespace: string;
    readonly revision: number;
    /** The hook object's name (the Pod `helm test` would create). */
    readonly hook: string;
    readonly kind: string;
    /** The object's API path, where delete finds it. */
    readonly path: string;
    readonly phase: "Succeeded" | "Failed";
    /** `passed in 4 s`, or what failed, with the end of its log. */
    readonly detail: string;
    readonly startedAt: string;
    readonly completedAt: string;
}

/** The release's test hooks in the order `helm test` runs them: by weight, then by name. */
export function testHooks(release: Pick<InstalledRelease, "hooks">): HelmHook[] {
    return release.hooks
        .filter((h) => h.events.includes(HELM_HOOK.testEvent))
        .sort((a, b) => a.weight - b.weight || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** Helm's policies for a hook: `before-hook-creation` when it names none. */
export const deletePolicies = (hook: HelmHook): readonly string[] =>
    hook.deletePolicies.length > 0 ? hook.deletePolicies : [HELM_HOOK.beforeHookCreation];

/** The kinds Helm waits for (`pkg/kube/client.go` watchUntilReady); any other hook object is done once created. */
type WaitedKind = "Pod" | "Job";
const isWaited = (kind: string): kind is WaitedKind => kind === "Pod" || kind === "Job";

/** Where a hook object stands, from its status alone: done (and how), or still running (and on what it waits). */
export function hookOutcome(
    kind: WaitedKind,
    object: unknown,
): { done: true; ok: boolean; why: string } | { done: false; waiting: string } {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the object is read field by field
    const o = object as any;
    if (kind === "Pod") {
        const phase: string | undefined = o?.status?.phase;
        const terminated = (o?.status?.containerStatuses ?? [])
            .map((c: { name?: string; state?: { terminated?: { exitCode?: number; reason?: string } } }) =>
                c.state?.terminated && c.state.terminated.exitCode !== 0
                    ? `container ${c.name} exited ${c.state.terminated.exitCode}${c.state.terminated.reason ? ` (${c.state.terminated.reason})` : ""}`
                    : undefined,
            )
            .filter(Boolean) as string[];
        if (phase === "Succeeded") return { done: true, ok: true, why: "Succeeded" };
        if (phase === "Failed") return { done: true, ok: false, why: ["Failed", ...terminated].join(": ") };
        const waiting = (o?.status?.containerStatuses ?? [])
            .map((c: { name?: string; state?: { waiting?: { reason?: string; message?: string } } }) =>
                c.state?.waiting?.reason
                    ? `container ${c.name} waits: ${c.state.waiting.reason}${c.state.waiting.message ? ` (${c.state.waiting.message})` : ""}`
                    : undefined,
            )
            .filter(Boolean) as string[];
        return { done: false, waiting: waiting.join("; ") || `phase ${phase ?? "not reported yet"}` };
    }
    const conditions = (o?.status?.conditions ?? []) as { type?: string; status?: string; reason?: string; message?: string }[];
    const complete = conditions.find((c) => c.type === "Complete" && c.status === "True");
    const failed = conditions.find((c) => c.type === "Failed" && c.status === "True");
    if (complete) return { done: true, ok: true, why: "Complete" };
    if (failed)
        return {
            done: true,
            ok: false,
            why: `Failed${failed.reason ? ` (${failed.reason})` : ""}${failed.message ? `: ${failed.message}` : ""}`,
        };
    return { done: false, waiting: `active ${o?.status?.active ?? 0}, failed ${o?.status?.failed ?? 0}` };
}

export interface HookRunOptions {
    readonly timeoutSeconds: number;
    readonly pollMs: number;
    readonly say: (line: string) => void;
}

interface Located {
    readonly object: Record<string, unknown> & { metadata: { name: string; namespace?: string } };
    readonly path: string;
    readonly collection: string;
    readonly namespace: string;
}

/** Who creates the test objects, in their managed fields. */
export const SMOKE_FIELD_MANAGER = "nvcf-self-managed-smoke";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const now = () => new Date().toISOString();

/**
 * `helm test <release>` over the API server (helm/helm v3.18.6 `pkg/action/release_testing.go`
 * and `hooks.go` execHook): each test hook of the newest revision in order, its old object deleted
 * first (`before-hook-creation`), created, waited on until its Pod succeeds or fails (a Job:
 * Complete or Failed), then deleted by its `hook-succeeded` / `hook-failed` policy. The first
 * failure ends the release's run, as in Helm. Helm's record of the run (`last_run`) is not
 * written: the release's Secret is the kubernetes provider's, and the test Pods stay to be read.
 */
export async function runReleaseTests(kube: Kube, release: InstalledRelease, options: HookRunOptions): Promise<HookRun[]> {
    const runs: HookRun[] = [];
    const kinds = discovery(kube);
    for (const hook of testHooks(release)) {
        const target = await locate(kube, kinds, release, hook);
        const policies = deletePolicies(hook);
        if (policies.includes(HELM_HOOK.beforeHookCreation)) await remove(kube, target, options);
        const startedAt = now();
        const created = await kube.request("POST", `${target.collection}?fieldManager=${SMOKE_FIELD_MANAGER}`, target.object);
        if (created.status >= 300) {
            runs.push(
                run(release, hook, target, startedAt, false, `could not be created: HTTP ${created.status}: ${excerpt(created.text, 200)}`),
            );
            break;
        }
        options.say(`helm test ${release.name}: ${hook.kind} ${target.namespace}/${hook.name} started`);
        const outcome = await waitForHook(kube, target, hook.kind, options);
        const seconds = Math.round((Date.parse(now()) - Date.parse(startedAt)) / 1000);
        const detail = outcome.ok ? `passed in ${seconds} s` : `${outcome.why}${await logTail(kube, target, hook.kind)}`;
        runs.push(run(release, hook, target, startedAt, outcome.ok, detail));
        options.say(
            `helm test ${release.name}: ${hook.kind} ${target.namespace}/${hook.name} ${outcome.ok ? "Succeeded" : "Failed"}: ${detail}`,
        );
        if (policies.includes(outcome.ok ? HELM_HOOK.hookSucceeded : HELM_HOOK.hookFailed)) await remove(kube, target, options);
        if (!outcome.ok) break;
    }
    return runs;
}

function run(release: InstalledRelease, hook: HelmHook, target: Located, startedAt: string, ok: boolean, detail: string): HookRun {
    return {
        release: release.name,
        namespace: release.namespace,
        revision: release.revision,
        hook: hook.name,
        kind: hook.kind,
        path: target.path,
        phase: ok ? "Succeeded" : "Failed",
        detail,
        startedAt,
        completedAt: now(),
    };
}

async function locate(kube: Kube, kinds: ReturnType<typeof discovery>, release: InstalledRelease, hook: HelmHook): Promise<Located> {
    const docs = loadAllYaml(hook.manifest).filter((d) => d && typeof d === "object") as Located["object"][];
    const object = docs[0];
    if (docs.length !== 1 || !object.metadata?.name || typeof object.apiVersion !== "string" || typeof object.kind !== "string")
        throw new Error(`${release.name}: its test hook ${hook.path} is not one Kubernetes object (${docs.length} documents)`);
    // Helm puts a hook without a namespace into the release's.
    const namespace = object.metadata.namespace ?? release.namespace;
    const { path, namespaced } = await kinds.locate(object.apiVersion, object.kind, object.metadata.name, namespace);
    const placed = namespaced ? { ...object, metadata: { ...object.metadata, namespace } } : object;
    return { object: placed, path, collection: path.slice(0, path.lastIndexOf("/")), namespace };
}

/** Deletes the object (its pods with it) and waits until it is gone, as Helm's WaitForDelete does. */
async function remove(kube: Kube, target: Located, options: HookRunOptions): Promise<void> {
    const res = await kube.request("DELETE", target.path, { kind: "DeleteOptions", apiVersion: "v1", propagationPolicy: "Background" });
    if (res.status === 404) return;
    if (res.status >= 300) throw new Error(`DELETE ${target.path} answered HTTP ${res.status}: ${excerpt(res.text, 200)}`);
    const deadline = Date.now() + options.timeoutSeconds * 1000;
    while (Date.now() < deadline) {
        if ((await kube.request("GET", target.path)).status === 404) return;
        await sleep(options.pollMs);
    }
    throw new Error(`${target.path} was deleted but is still there after ${options.timeoutSeconds} s (a finalizer?)`);
}

async function waitForHook(kube: Kube, target: Located, kind: string, options: HookRunOptions): Promise<{ ok: boolean; why: string }> {
    if (!isWaited(kind)) return { ok: true, why: "created" };
    const deadline = Date.now() + options.timeoutSeconds * 1000;
    let last: string;
    for (;;) {
        const res = await kube.request("GET", target.path);
        if (res.status === 200) {
            const outcome = hookOutcome(kind, res.body);
            if (outcome.done) return outcome;
            last = outcome.waiting;
        } else last = `GET answered HTTP ${res.status}`;
        if (Date.now() >= deadline) return { ok: false, why: `not done after ${options.timeoutSeconds} s (${last})` };
        await sleep(options.pollMs);
    }
}

/** The end of the failed Pod's log (a Job's: its newest pod's), or why it could not be read. */
async function logTail(kube: Kube, target: Located, kind: string): Promise<string> {
    let pod = target.object.metadata.name;
    if (kind === "Job") {
        const pods = await kube.request(
            "GET",
            `/api/v1/namespaces/${target.namespace}/pods?labelSelector=${encodeURIComponent(`job-name=${pod}`)}`,
        );
        const items = (pods.body?.items ?? []) as { metadata: { name: string; creationTimestamp?: string } }[];
        const newest = items.sort((a, b) => String(a.metadata.creationTimestamp).localeCompare(String(b.metadata.creationTimestamp))).pop();
        if (!newest) return "; no pod of the Job to read a log from";
        pod = newest.metadata.name;
    }
    const res = await kube.request("GET", `/api/v1/namespaces/${target.namespace}/pods/${pod}/log?tailLines=20`);
    if (res.status !== 200) return `; its log could not be read (HTTP ${res.status}): kubectl -n ${target.namespace} logs ${pod}`;
    const text = res.text.trim();
    return text ? `; log of ${pod}: ${excerpt(text, 600)}` : `; ${pod} logged nothing`;
}
