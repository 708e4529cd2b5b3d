/**
 * Where the end-to-end suite's tools are. A module of its own, without the Kubernetes client
 * (seconds to load): `npm run test:e2e` reads it first, to refuse or skip at once without them.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

/**
 * The real tools the suite needs, as scripts/e2e/build-tools.sh leaves them: from the E2E_*
 * environment variables, else from ~/.cache/nvcf-e2e/env.sh (or $NVCF_E2E_CACHE/env.sh).
 */
export interface Tools {
    readonly bin: string;
    readonly etcd: string;
    readonly kubeApiserver: string;
    /** The StatefulSet controller of the rollout and upgrade files (and nothing else of it). */
    readonly kubeControllerManager: string;
    readonly pulumi: string;
    readonly kubernetesProvider: string;
    /** The Node.js language host the CLI runs index.ts with (built from a pulumi/pulumi checkout). */
    readonly languageHost: string;
    /** The helm CLI `npm run recover` rolls back and uninstalls with. */
    readonly helm: string;
    /** OpenBao's server, the version NVIDIA's openbao chart pins (built from an openbao/openbao checkout). */
    readonly bao: string;
    /** The NATS server the bundle's nats chart deploys. */
    readonly natsServer: string;
    /** NVIDIA's JWT secrets plugin, as its OpenBao image carries it (built from an NVIDIA/nvcf checkout). */
    readonly jwtPlugin: string;
    /** The upstream files the suite loads, never hand-written ones: CRDs (nvca/, gateway-api/, kyverno/) and the openbao chart's values (openbao/). */
    readonly crds: string;
    /** Cassandra's jars (`lib/`), the version NVIDIA's cassandra image is built on, run with this machine's Java. */
    readonly cassandra: string;
    /** cqlsh, the client the cassandra chart's hooks and the password rotation Job run. */
    readonly cqlsh: string;
}

/** The E2E_* variables: from the environment, else from the cache's env.sh (build-tools.sh writes it). */
function settings(): { get: (key: string) => string | undefined; envFile: string } {
    const fromFile: Record<string, string> = {};
    const envFile = path.join(process.env.NVCF_E2E_CACHE ?? path.join(os.homedir(), ".cache", "nvcf-e2e"), "env.sh");
    if (fs.existsSync(envFile)) {
        for (const m of fs.readFileSync(envFile, "utf8").matchAll(/^export (E2E_[A-Z_]+|NVCF_E2E_BIN)='([^']*)'/gm)) fromFile[m[1]] = m[2];
    }
    return { get: (key: string) => process.env[key] ?? fromFile[key], envFile };
}

/** `present`: some tool was found, so the tools were (partly) built here: a missing one is a failure, not a skip. */
export function findTools(): { tools?: Tools; missing: string; present: boolean } {
    const { get, envFile } = settings();
    const wanted = {
        bin: get("NVCF_E2E_BIN"),
        etcd: get("E2E_ETCD"),
        kubeApiserver: get("E2E_KUBE_APISERVER"),
        kubeControllerManager: get("E2E_KUBE_CONTROLLER_MANAGER"),
        pulumi: get("E2E_PULUMI"),
        kubernetesProvider: get("E2E_PULUMI_RESOURCE_KUBERNETES"),
        languageHost: get("E2E_PULUMI_LANGUAGE_NODEJS"),
        helm: get("E2E_HELM") ?? (get("NVCF_E2E_BIN") ? path.join(get("NVCF_E2E_BIN")!, "helm") : undefined),
        bao: get("E2E_BAO"),
        natsServer: get("E2E_NATS_SERVER"),
        jwtPlugin: get("E2E_VAULT_PLUGIN_SECRETS_JWT"),
        crds: get("E2E_CRDS"),
        cassandra: get("E2E_CASSANDRA"),
        cqlsh: get("E2E_CQLSH"),
    };
    // With a real cluster (E2E_KUBECONFIG) the local API server's tools, and the suites that run only on it, are not needed.
    // Otherwise every tool is: a suite never skips itself for a missing one.
    const needed = process.env.E2E_KUBECONFIG
        ? (["bin", "pulumi", "kubernetesProvider", "languageHost", "helm"] as const)
        : (Object.keys(wanted) as (keyof Tools)[]);
    // The upstream files of a cache built before they held the openbao chart's values count as missing (rebuilt by the script).
    const has = (k: keyof Tools) =>
        !!wanted[k] && fs.existsSync(k === "crds" ? path.join(wanted[k]!, "openbao", "values.yaml") : wanted[k]!);
    const missing = needed.filter((k) => !has(k));
    const present = needed.some((k) => wanted[k] && fs.existsSync(wanted[k]!));
    if (missing.length > 0) {
        const hint = [
            ...(missing.includes("languageHost") ? ["the language host needs PULUMI_SOURCE"] : []),
            ...(missing.includes("bao") ? ["bao needs OPENBAO_SOURCE"] : []),
            ...(missing.includes("jwtPlugin") || missing.includes("crds") ? ["jwtPlugin and crds need NVCF_SOURCE"] : []),
        ]
            .map((h) => `; ${h}, see the script`)
            .join("");
        return { missing: `missing ${missing.join(", ")} (looked in the environment and ${envFile}${hint})`, present };
    }
    return { tools: wanted as Tools, missing: "", present };
}

/**
 * The Pulumi Kubernetes Operator fleet/ pins, as build-tools.sh's `operator` tool leaves it: only
 * test/e2e/operator.test.ts needs it, so findTools() does not ask for it.
 */
export interface OperatorTools {
    /** The manager (upstream's ./operator/cmd). */
    readonly manager: string;
    /** The workspace agent (upstream's ./agent): `init` and `serve` of a workspace pod. */
    readonly agent: string;
    /** deploy/crds/*.yaml, and rbac/ with the manager's ClusterRole and its binding (operator/config/rbac/). */
    readonly crds: string;
}

export function findOperator(): { tools?: OperatorTools; missing: string } {
    const { get, envFile } = settings();
    const wanted = {
        manager: get("E2E_PKO_MANAGER"),
        agent: get("E2E_PKO_AGENT"),
        crds: get("E2E_CRDS") ? path.join(get("E2E_CRDS")!, "pko") : undefined,
    };
    const has = (k: keyof OperatorTools) =>
        !!wanted[k] && fs.existsSync(k === "crds" ? path.join(wanted[k]!, "pulumi.com_stacks.yaml") : wanted[k]!);
    const missing = (Object.keys(wanted) as (keyof OperatorTools)[]).filter((k) => !has(k)).map((k) => `operator ${k}`);
    if (missing.length > 0) {
        return {
            missing:
                `missing ${missing.join(", ")} (looked in the environment and ${envFile}; ` +
                "build them with OPERATOR_SOURCE=<a pulumi/pulumi-kubernetes-operator git checkout> scripts/e2e/build-tools.sh operator)",
        };
    }
    return { tools: wanted as OperatorTools, missing: "" };
}

/** gofakes3, the S3-compatible server build-tools.sh's `s3` tool leaves: only test/e2e/shared-backend.test.ts needs it. */
export function findS3Server(): { bin?: string; missing: string } {
    const { get, envFile } = settings();
    const bin = get("E2E_GOFAKES3");
    if (bin && fs.existsSync(bin)) return { bin, missing: "" };
    return {
        missing: `missing gofakes3, an S3-compatible server (looked in the environment and ${envFile}; build it with scripts/e2e/build-tools.sh s3)`,
    };
}
