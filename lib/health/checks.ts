import * as zlib from "node:zlib";
/**
 * The checks of preflight, the health gate and `npm run status`: small functions over a
 * Kubernetes API client, each answering one question with one sentence and, when it fails, the fix.
 * They only read (the access review is a read of the caller's own rights), so `status` may run them any time.
 */
import { GATEWAY_API_CRDS, GATEWAY_API_INSTALL } from "../contracts/gateway-api";
import { agentIsHealthy, nvcfBackendPath } from "../contracts/nvca";
import { OPENBAO_API } from "../openbao/contract";
import { excerpt, httpRequest, type TlsOptions } from "../http/client";
import { failed, type CheckResult } from "./check-result";
import { adminRouteAtEdge, EDGE_CHECK, type EdgeRouteProbe } from "./edge-check";
import { sharedNkeyHolders } from "./nats-nkey-check";

export { failed, type CheckResult } from "./check-result";
import { getObject, listItems, type Kube } from "../kubernetes/client";
import { messageOf } from "../text/message-of";

/** The oldest Kubernetes the program supports: nvcf-cli's own preflight refuses kubectl older than 1.28. */
export const MIN_KUBERNETES = { major: 1, minor: 28 } as const;

/** A Gateway and the listeners (name and port) the bundle's routes attach to. */
export interface GatewaySpec {
    readonly namespace: string;
    readonly name: string;
    readonly listeners: readonly { readonly name: string; readonly port: number }[];
}

/** What preflight checks on one cluster; a group left out is skipped. */
export interface PreflightSpec {
    readonly kubernetesVersion?: boolean;
    readonly clusterAdmin?: boolean;
    readonly gatewayApi?: { readonly gateways: readonly GatewaySpec[] };
    /** "" asks for a default StorageClass. */
    readonly storageClass?: { readonly name: string };
    readonly gpu?: boolean;
}

/** How the health gate reaches OpenBao's unauthenticated seal status. */
export interface OpenBaoProbe {
    readonly namespace: string;
    readonly pod: string;
    readonly port: number;
    readonly scheme: "http" | "https";
    /** Reached directly instead of through the API server's pod proxy. */
    readonly address?: string;
    readonly insecureSkipVerify?: boolean;
    readonly caCert?: string;
}

/** What the health gate checks on one cluster; a group left out is skipped. */
export interface HealthSpec {
    readonly accountBootstrap?: { readonly namespace: string; readonly job: string; readonly release: string };
    readonly openbao?: OpenBaoProbe;
    /** Namespaces whose HTTPRoutes must all be Accepted (the routes live in the Gateway's namespace). */
    readonly routes?: { readonly namespaces: readonly string[] };
    /** Namespaces whose Deployments and StatefulSets must all be ready. */
    readonly workloads?: { readonly namespaces: readonly string[] };
    readonly nvcfBackend?: { readonly name: string; readonly namespace: string; readonly agentNamespace: string };
    /** The admin route must not be served at the edge (the proxy or its route is off). */
    readonly adminRouteAtEdge?: EdgeRouteProbe;
    /** In NATS token mode: the workers that still hold the shared NKey (information only). */
    readonly sharedNkey?: boolean;
}

const ok = (name: string, detail: string): CheckResult => ({ name, ok: true, detail, fix: "" });
const fail = (name: string, detail: string, fix: string): CheckResult => ({ name, ok: false, detail, fix });

/** A check that threw (no answer, an unexpected status) fails with what happened, never the whole run. */
async function guarded(name: string, fix: string, run: () => Promise<CheckResult | CheckResult[]>): Promise<CheckResult[]> {
    try {
        const r = await run();
        return Array.isArray(r) ? r : [r];
    } catch (err) {
        return [fail(name, `could not be checked: ${messageOf(err)}`, fix)];
    }
}

/** The API server answers, and runs a supported Kubernetes. */
export async function kubernetesVersion(kube: Kube): Promise<CheckResult> {
    const name = "kubernetes-version";
    let res;
    try {
        res = await kube.request("GET", "/version");
    } catch (err) {
        return fail(
            name,
            `the API server ${kube.server} could not be reached: ${messageOf(err)}`,
            "check the kubeconfig's server, context and credentials (kubectl get --raw /version), and that this machine reaches it",
        );
    }
    if (res.status === 401 || res.status === 403) {
        return fail(
            name,
            `the API server ${kube.server} refused the credentials (HTTP ${res.status})`,
            "renew the kubeconfig's credentials",
        );
    }
    const major = Number(String(res.body?.major ?? "").replace(/\D/g, ""));
    const minor = Number(String(res.body?.minor ?? "").replace(/\D/g, ""));
    if (res.status !== 200 || !major || Number.isNaN(minor)) {
        return fail(
            name,
            `${kube.server}/version answered HTTP ${res.status} without a version: ${excerpt(res.text, 120)}`,
            "check that the kubeconfig's server is a Kubernetes API server",
        );
    }
    const min = MIN_KUBERNETES;
    if (major < min.major || (major === min.major && minor < min.minor)) {
        return fail(
            name,
            `Kubernetes ${major}.${minor} is older than ${min.major}.${min.minor}`,
            `upgrade the cluster to Kubernetes ${min.major}.${min.minor} or later`,
        );
    }
    return ok(name, `Kubernetes ${res.body.gitVersion ?? `${major}.${minor}`} at ${kube.server}`);
}

/** The kubeconfig's identity may do anything anywhere: the stack creates CRDs, ClusterRoles and webhooks. */
export async function clusterAdmin(kube: Kube): Promise<CheckResult> {
    const name = "cluster-admin";
    const fix =
        "bind the kubeconfig's user to cluster-admin (kubectl create clusterrolebinding nvcf-self-managed --clusterrole=cluster-admin --user=<user>), or use an admin kubeconfig";
    const res = await kube.request("POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", {
        apiVersion: "authorization.k8s.io/v1",
        kind: "SelfSubjectAccessReview",
        spec: { resourceAttributes: { verb: "*", group: "*", resource: "*" } },
    });
    if (res.status !== 201 && res.status !== 200) {
        return fail(name, `the access review answered HTTP ${res.status}: ${excerpt(res.text, 120)}`, fix);
    }
    return res.body?.status?.allowed === true
        ? ok(name, "the kubeconfig's identity has cluster-admin rights")
        : fail(name, "the kubeconfig's identity lacks cluster-admin rights (every verb on every resource)", fix);
}

/** The Gateway API CRDs, then each configured Gateway with the listeners the routes attach to. */
export async function gatewayApi(kube: Kube, gateways: readonly GatewaySpec[]): Promise<CheckResult[]> {
    const missing: string[] = [];
    for (const crd of GATEWAY_API_CRDS) {
        if (!(await getObject(kube, `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd}.gateway.networking.k8s.io`))) {
            missing.push(`${crd}.gateway.networking.k8s.io`);
        }
    }
    if (missing.length > 0) {
        return [
            fail(
                "gateway-api-crds",
                `the Gateway API CRDs ${missing.join(", ")} are not installed`,
                `install Gateway API v1.2.0 (experimental channel): ${GATEWAY_API_INSTALL}`,
            ),
        ];
    }
    const results = [ok("gateway-api-crds", `the Gateway API CRDs are installed (${GATEWAY_API_CRDS.join(", ")})`)];
    for (const gw of gateways) {
        const name = `gateway ${gw.namespace}/${gw.name}`;
        const obj = await getObject(kube, `/apis/gateway.networking.k8s.io/v1/namespaces/${gw.namespace}/gateways/${gw.name}`);
        const wanted = gw.listeners.map((l) => `${l.name}:${l.port}`).join(", ");
        if (!obj) {
            results.push(
                fail(
                    name,
                    `the Gateway ${gw.namespace}/${gw.name} does not exist`,
                    `create it with the listeners ${wanted} (see the README's Prerequisites), or set controlPlane.ingress.gatewayApi.gateways to the Gateway you have`,
                ),
            );
            continue;
        }
        const listeners: { name?: string; port?: number }[] = Array.isArray(obj.spec?.listeners) ? obj.spec.listeners : [];
        const absent = gw.listeners.filter((l) => !listeners.some((x) => x.name === l.name && x.port === l.port));
        results.push(
            absent.length === 0
                ? ok(name, `the Gateway has the listeners ${wanted}`)
                : fail(
                      name,
                      `the Gateway lacks the listener${absent.length > 1 ? "s" : ""} ${absent.map((l) => `${l.name}:${l.port}`).join(", ")} (it has ${listeners.map((x) => `${x.name}:${x.port}`).join(", ") || "none"})`,
                      `add them to spec.listeners (kubectl -n ${gw.namespace} edit gateway ${gw.name})`,
                  ),
        );
    }
    return results;
}

/** The configured StorageClass exists, or (none configured) one is marked default: Cassandra, OpenBao and NATS claim volumes. */
export async function storageClass(kube: Kube, wanted: string): Promise<CheckResult> {
    const name = "storage-class";
    if (wanted) {
        return (await getObject(kube, `/apis/storage.k8s.io/v1/storageclasses/${wanted}`))
            ? ok(name, `the StorageClass ${wanted} exists`)
            : fail(
                  name,
                  `the StorageClass ${wanted} (controlPlane.global.storageClass) does not exist`,
                  "create it, or set controlPlane.global.storageClass to one of kubectl get storageclass",
              );
    }
    const classes = await listItems(kube, "/apis/storage.k8s.io/v1/storageclasses");
    const isDefault = (sc: { metadata?: { annotations?: Record<string, string> } }) =>
        ["storageclass.kubernetes.io/is-default-class", "storageclass.beta.kubernetes.io/is-default-class"].some(
            (a) => sc.metadata?.annotations?.[a] === "true",
        );
    const def = classes.find(isDefault);
    return def
        ? ok(name, `the default StorageClass is ${def.metadata.name}`)
        : fail(
              name,
              `no StorageClass is marked default${classes.length ? ` (there are ${classes.map((c) => c.metadata?.name).join(", ")})` : " and there is none"}`,
              "mark one default (kubectl annotate storageclass <name> storageclass.kubernetes.io/is-default-class=true), or set controlPlane.global.storageClass",
          );
}

/** GPUs the nodes advertise, else the GPU Operator's CRD: NVCA schedules nothing on a cluster with neither. */
export async function gpu(kube: Kube): Promise<CheckResult> {
    const name = "gpu";
    const nodes = await listItems(kube, "/api/v1/nodes");
    const withGpu = nodes.filter(
        (n) => Number(n.status?.allocatable?.["nvidia.com/gpu"] ?? n.status?.capacity?.["nvidia.com/gpu"] ?? 0) > 0,
    );
    if (withGpu.length > 0) return ok(name, `${withGpu.length} node${withGpu.length > 1 ? "s advertise" : " advertises"} nvidia.com/gpu`);
    if (await getObject(kube, "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/clusterpolicies.nvidia.com")) {
        return ok(name, "the GPU Operator is installed (CRD clusterpolicies.nvidia.com); no node advertises nvidia.com/gpu yet");
    }
    return fail(
        name,
        "no node advertises nvidia.com/gpu and the GPU Operator is not installed (no CRD clusterpolicies.nvidia.com)",
        "install the NVIDIA GPU Operator on this cluster (helm install gpu-operator nvidia/gpu-operator -n gpu-operator --create-namespace), then check kubectl get nodes -o jsonpath='{..allocatable.nvidia\\.com/gpu}'",
    );
}

/** Every preflight check the spec asks for; an unreachable API server stops there (every other check would say the same). */
export async function preflight(kube: Kube, spec: PreflightSpec): Promise<CheckResult[]> {
    const version = await kubernetesVersion(kube);
    if (!version.ok && /could not be reached|refused the credentials/.test(version.detail)) return [version];
    const results: CheckResult[] = spec.kubernetesVersion === false ? [] : [version];
    if (spec.clusterAdmin)
        results.push(
            ...(await guarded("cluster-admin", "check the kubeconfig's rights (kubectl auth can-i '*' '*')", () => clusterAdmin(kube))),
        );
    if (spec.gatewayApi)
        results.push(
            ...(await guarded("gateway-api", "check kubectl get crd,gateway -A", () => gatewayApi(kube, spec.gatewayApi!.gateways))),
        );
    if (spec.storageClass)
        results.push(
            ...(await guarded("storage-class", "check kubectl get storageclass", () => storageClass(kube, spec.storageClass!.name))),
        );
    if (spec.gpu) results.push(...(await guarded("gpu", "check kubectl get nodes", () => gpu(kube))));
    return results;
}

/** A Job's outcome by its status: its Failed condition (with the message), else Complete or a succeeded pod, else still running. */
export function jobOutcome(job: {
    status?: { conditions?: { type?: string; status?: string; message?: string }[]; succeeded?: number };
}): "succeeded" | "running" | { failed: string } {
    const conditions = job.status?.conditions ?? [];
    const failed = conditions.find((c) => c.type === "Failed" && c.status === "True");
    if (failed) return { failed: failed.message ?? "" };
    if (conditions.some((c) => c.type === "Complete" && c.status === "True") || (job.status?.succeeded ?? 0) > 0) return "succeeded";
    return "running";
}

/**
 * The account bootstrap Job (`nvcf-api-account-bootstrap`, a post-install/upgrade hook of `api`)
 * succeeded. It deletes itself 300 s after it finishes, so with no Job the Helm release's record
 * of the hook's last run decides; with neither it never ran, and every call fails with
 * "404 Unknown client_id".
 */
export async function accountBootstrap(kube: Kube, spec: NonNullable<HealthSpec["accountBootstrap"]>): Promise<CheckResult> {
    const name = "account-bootstrap";
    const inspect = `kubectl -n ${spec.namespace} logs job/${spec.job}`;
    const job = await getObject(kube, `/apis/batch/v1/namespaces/${spec.namespace}/jobs/${spec.job}`);
    if (job) {
        const outcome = jobOutcome(job);
        if (outcome === "succeeded") return ok(name, `the Job ${spec.namespace}/${spec.job} succeeded`);
        if (outcome !== "running") {
            return fail(
                name,
                `the Job ${spec.namespace}/${spec.job} failed${outcome.failed ? `: ${outcome.failed}` : ""}`,
                `read its log (${inspect}); fix the cause, then run pulumi up again (the hook reruns on upgrade)`,
            );
        }
        return fail(
            name,
            `the Job ${spec.namespace}/${spec.job} has not finished (${job.status?.active ?? 0} active)`,
            `wait, or read its log (${inspect}): it waits for the NVCF API's /health`,
        );
    }
    const phase = await hookPhase(kube, spec.namespace, spec.release, spec.job);
    if (phase === "Succeeded")
        return ok(name, `the hook ${spec.job} of release ${spec.release} succeeded (its Job was removed after it finished)`);
    return fail(
        name,
        phase
            ? `the hook ${spec.job} of release ${spec.release} last ended ${phase}`
            : `the Job ${spec.namespace}/${spec.job} never ran: there is no Job and no record of it in release ${spec.release}`,
        `the account does not exist and every call fails with '404 Unknown client_id': run pulumi up again to rerun the hook (helm -n ${spec.namespace} history ${spec.release} shows the release)`,
    );
}

/** The phase of a hook's last run, as Helm recorded it in the release's newest Secret. */
export async function hookPhase(kube: Kube, namespace: string, release: string, hook: string): Promise<string | undefined> {
    const secrets = await listItems(
        kube,
        `/api/v1/namespaces/${namespace}/secrets?labelSelector=${encodeURIComponent(`owner=helm,name=${release}`)}`,
    );
    const newest = secrets.sort((a, b) => Number(b.metadata?.labels?.version ?? 0) - Number(a.metadata?.labels?.version ?? 0))[0];
    if (!newest?.data?.release) return undefined;
    try {
        const raw = Buffer.from(Buffer.from(newest.data.release, "base64").toString("utf8"), "base64");
        const rel = JSON.parse(zlib.gunzipSync(raw).toString("utf8")) as { hooks?: { name?: string; last_run?: { phase?: string } }[] };
        const phase = rel.hooks?.find((h) => h.name === hook)?.last_run?.phase;
        return phase || undefined;
    } catch {
        return undefined;
    }
}

/** OpenBao answers its unauthenticated seal status: initialised and unsealed. */
export async function openbao(
    kube: Kube,
    probe: OpenBaoProbe,
    options: { timeoutMs: number } = { timeoutMs: 10_000 },
): Promise<CheckResult> {
    const name = "openbao";
    const inspect = `kubectl -n ${probe.namespace} exec ${probe.pod} -- bao status`;
    let status: number;
    let text: string;
    if (probe.address) {
        const tls: TlsOptions = { rejectUnauthorized: !probe.insecureSkipVerify, ...(probe.caCert ? { ca: probe.caCert } : {}) };
        const res = await httpRequest({
            method: "GET",
            url: `${probe.address.replace(/\/$/, "")}/v1/${OPENBAO_API.sealStatus}`,
            tls,
            timeoutMs: options.timeoutMs,
            retries: 1,
        });
        ({ status, body: text } = res);
    } else {
        const pod = `${probe.scheme === "https" ? "https:" : ""}${probe.pod}:${probe.port}`;
        const res = await kube.request("GET", `/api/v1/namespaces/${probe.namespace}/pods/${pod}/proxy/v1/${OPENBAO_API.sealStatus}`);
        ({ status, text } = res);
    }
    let body: { initialized?: unknown; sealed?: unknown } | undefined;
    try {
        body = JSON.parse(text);
    } catch {
        body = undefined;
    }
    if (status !== 200 || typeof body?.sealed !== "boolean") {
        return fail(
            name,
            `OpenBao's seal status answered HTTP ${status}: ${excerpt(text, 160) || "no body"}`,
            `check the pod (kubectl -n ${probe.namespace} get pod ${probe.pod}) and ${inspect}`,
        );
    }
    if (body.initialized !== true) {
        return fail(
            name,
            "OpenBao is not initialised (its post-install Job openbao-server-initialize-cluster never completed)",
            `a failed first install is not repaired by an upgrade: uninstall openbao-server, delete the ${probe.namespace} namespace, run pulumi up again (${inspect})`,
        );
    }
    if (body.sealed)
        return fail(
            name,
            "OpenBao is sealed",
            `unseal it (${inspect}; the unseal keys are in Secret ${probe.namespace}/openbao-server-unseal)`,
        );
    return ok(name, "OpenBao is initialised and unsealed");
}

/** Every HTTPRoute in the namespaces is Accepted by each Gateway it names. */
export async function routes(kube: Kube, namespaces: readonly string[]): Promise<CheckResult> {
    const name = "routes";
    const all: { ns: string; name: string; refused: string[] }[] = [];
    for (const ns of namespaces) {
        for (const route of await listItems(kube, `/apis/gateway.networking.k8s.io/v1/namespaces/${ns}/httproutes`)) {
            const parents: { parentRef?: { name?: string }; conditions?: { type?: string; status?: string; reason?: string }[] }[] =
                route.status?.parents ?? [];
            const refused =
                parents.length === 0
                    ? ["no Gateway has reported on it"]
                    : parents
                          .filter((p) => !(p.conditions ?? []).some((c) => c.type === "Accepted" && c.status === "True"))
                          .map(
                              (p) =>
                                  `${p.parentRef?.name ?? "?"}: ${(p.conditions ?? []).find((c) => c.type === "Accepted")?.reason ?? "not accepted"}`,
                          );
            all.push({ ns, name: route.metadata?.name, refused });
        }
    }
    if (all.length === 0) {
        return fail(
            name,
            `no HTTPRoute in ${namespaces.join(", ")}`,
            `check that the ingress release installed (helm -n <controllerNamespace> status ingress) and kubectl get httproute -A`,
        );
    }
    const bad = all.filter((r) => r.refused.length > 0);
    if (bad.length === 0) return ok(name, `${all.length} HTTPRoute${all.length > 1 ? "s are" : " is"} Accepted`);
    return fail(
        name,
        `not Accepted: ${bad.map((r) => `${r.ns}/${r.name} (${r.refused.join("; ")})`).join(", ")}`,
        `kubectl -n ${bad[0].ns} describe httproute ${bad[0].name}: a listener that does not admit the namespace (label nvcf/platform=true), or a missing listener, is the usual cause`,
    );
}

/** Every Deployment and StatefulSet in the namespaces has its replicas ready at its current generation. */
export async function workloads(kube: Kube, namespaces: readonly string[]): Promise<CheckResult> {
    const name = "workloads";
    const notReady: string[] = [];
    let count = 0;
    for (const ns of namespaces) {
        for (const kind of ["deployments", "statefulsets"] as const) {
            for (const w of await listItems(kube, `/apis/apps/v1/namespaces/${ns}/${kind}`)) {
                count++;
                const want = w.spec?.replicas ?? 1;
                const ready = w.status?.readyReplicas ?? 0;
                const current = (w.status?.observedGeneration ?? 0) >= (w.metadata?.generation ?? 0);
                if (ready < want || !current)
                    notReady.push(
                        `${kind === "deployments" ? "deployment" : "statefulset"} ${ns}/${w.metadata?.name} (${ready}/${want} ready)`,
                    );
            }
        }
    }
    if (notReady.length === 0)
        return ok(
            name,
            `${count} Deployment${count === 1 ? "" : "s"} and StatefulSet${count === 1 ? "" : "s"} ready in ${namespaces.length} namespaces`,
        );
    const [kind, ref] = notReady[0].split(" ");
    const [ns, obj] = ref.split("/");
    return fail(name, `not ready: ${notReady.join(", ")}`, `kubectl -n ${ns} describe ${kind} ${obj} (and its pods' events)`);
}

/** NVCA: the NVCFBackend reports its agent `Healthy`, and the operator's and agent's pods are Ready. */
export async function nvcfBackend(kube: Kube, spec: NonNullable<HealthSpec["nvcfBackend"]>): Promise<CheckResult[]> {
    const results: CheckResult[] = [];
    const backend = await getObject(kube, nvcfBackendPath(spec.namespace, spec.name));
    const health: unknown = backend?.status?.agentStatus;
    const inspect = `kubectl -n ${spec.namespace} describe nvcfbackend ${spec.name}; kubectl -n ${spec.namespace} logs deploy/nvca-operator`;
    results.push(
        !backend
            ? fail(
                  "nvcfbackend",
                  `the NVCFBackend ${spec.namespace}/${spec.name} does not exist (the operator has not created it)`,
                  inspect,
              )
            : agentIsHealthy(health)
              ? ok("nvcfbackend", `the NVCFBackend ${spec.name} is healthy`)
              : fail("nvcfbackend", `the NVCFBackend ${spec.name} reports ${health ? `"${health}"` : "no agent status"}`, inspect),
    );
    const notReady: string[] = [];
    let agents = 0;
    for (const ns of [spec.namespace, spec.agentNamespace]) {
        for (const pod of await listItems(kube, `/api/v1/namespaces/${ns}/pods`)) {
            // As nvcf-cli's self-hosted check: finished pods (Succeeded or Failed, e.g. a completed Job's) are not counted.
            if (pod.status?.phase === "Succeeded" || pod.status?.phase === "Failed") continue;
            if (ns === spec.agentNamespace) agents++;
            const ready = (pod.status?.conditions ?? []).some(
                (c: { type?: string; status?: string }) => c.type === "Ready" && c.status === "True",
            );
            if (!ready) notReady.push(`${ns}/${pod.metadata?.name}`);
        }
    }
    if (agents === 0) {
        results.push(
            fail(
                "nvca-pods",
                `no pod in ${spec.agentNamespace}: the agent is not running`,
                `kubectl -n ${spec.namespace} logs deploy/nvca-operator (it starts the agent)`,
            ),
        );
    } else {
        results.push(
            notReady.length === 0
                ? ok("nvca-pods", `the pods in ${spec.namespace} and ${spec.agentNamespace} are Ready`)
                : fail(
                      "nvca-pods",
                      `not Ready: ${notReady.join(", ")}`,
                      `kubectl -n ${notReady[0].split("/")[0]} describe pod ${notReady[0].split("/")[1]}`,
                  ),
        );
    }
    return results;
}

/** Every health check the spec asks for. */
export async function health(kube: Kube, spec: HealthSpec): Promise<CheckResult[]> {
    const version = await kubernetesVersion(kube);
    if (!version.ok) return [version];
    const results: CheckResult[] = [];
    if (spec.accountBootstrap)
        results.push(
            ...(await guarded("account-bootstrap", "kubectl -n nvcf get jobs", () => accountBootstrap(kube, spec.accountBootstrap!))),
        );
    if (spec.openbao) results.push(...(await guarded("openbao", "kubectl -n vault-system get pods", () => openbao(kube, spec.openbao!))));
    if (spec.routes) results.push(...(await guarded("routes", "kubectl get httproute -A", () => routes(kube, spec.routes!.namespaces))));
    if (spec.workloads)
        results.push(...(await guarded("workloads", "kubectl get deploy,sts -A", () => workloads(kube, spec.workloads!.namespaces))));
    if (spec.nvcfBackend)
        results.push(
            ...(await guarded("nvcfbackend", "kubectl -n nvca-operator get nvcfbackend", () => nvcfBackend(kube, spec.nvcfBackend!))),
        );
    if (spec.adminRouteAtEdge)
        results.push(...(await guarded(EDGE_CHECK, "kubectl get gateway -A", () => adminRouteAtEdge(kube, spec.adminRouteAtEdge!))));
    if (spec.sharedNkey) results.push(await sharedNkeyHolders(kube));
    return results;
}

/** The failures as one message: each as "<cluster>: <check>: <detail>. Fix: <fix>", one a line. */
export function describeFailures(cluster: string, results: readonly CheckResult[]): string {
    return results
        .filter(failed)
        .map((r) => `${cluster}: ${r.name}: ${r.detail}. Fix: ${r.fix}`)
        .join("\n");
}
