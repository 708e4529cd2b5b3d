import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { TlsOptions } from "../http/client";

/** How to reach a cluster's API server: kubeconfig contents (or the default one) and a context. */
export interface KubeAccess {
    /** Kubeconfig contents; undefined loads $KUBECONFIG or ~/.kube/config. */
    readonly kubeconfig?: string;
    readonly context?: string;
    /** Where `kubeconfig` came from, for messages (e.g. "the secret nvcf-self-managed:kubeconfig"). */
    readonly source?: string;
}

/** An API server and the credentials a kubeconfig gives for it, ready for the HTTP client. */
export interface ApiServer {
    readonly server: string;
    readonly headers: Record<string, string>;
    readonly tls: TlsOptions;
}

/**
 * Resolves a kubeconfig with the official client, so every auth method works (tokens, client
 * certificates, exec plugins such as `aws eks get-token`).
 */
export async function apiServer(access: KubeAccess): Promise<ApiServer> {
    const k8s = await import("@kubernetes/client-node");
    const kc = new k8s.KubeConfig();
    if (access.kubeconfig !== undefined) {
        try {
            kc.loadFromString(access.kubeconfig);
        } catch (err) {
            // No cause: the parser's own error quotes lines of the kubeconfig, tokens included.
            // eslint-disable-next-line preserve-caught-error
            throw new Error(kubeconfigError(access.source ?? "the kubeconfig", err));
        }
    } else {
        const missing = noDefaultKubeconfig(process.env, os.homedir(), fs.existsSync);
        if (missing) throw new Error(missing);
        kc.loadFromDefault();
    }
    if (access.context) {
        if (!kc.getContextObject(access.context)) {
            throw new Error(`the kubeconfig has no context ${access.context}`);
        }
        kc.setCurrentContext(access.context);
    }
    const cluster = kc.getCurrentCluster();
    if (!cluster?.server) throw new Error("the kubeconfig names no cluster server for its current context");
    const opts: {
        headers?: Record<string, string>;
        ca?: string | Buffer;
        cert?: string | Buffer;
        key?: string | Buffer;
        rejectUnauthorized?: boolean;
        auth?: string;
    } = {};
    await kc.applyToHTTPSOptions(opts as never);
    const headers: Record<string, string> = { ...(opts.headers ?? {}) };
    if (opts.auth) headers.Authorization = `Basic ${Buffer.from(opts.auth).toString("base64")}`;
    return {
        server: cluster.server.replace(/\/$/, ""),
        headers,
        tls: { ca: opts.ca, cert: opts.cert, key: opts.key, rejectUnauthorized: opts.rejectUnauthorized },
    };
}

/**
 * A kubeconfig load error without the kubeconfig's text: the YAML parser quotes the lines
 * around a syntax error, tokens and keys included, so only the position is kept.
 */
export function kubeconfigError(source: string, err: unknown): string {
    const mark = (err as { mark?: { line?: unknown; column?: unknown } } | null)?.mark;
    if (mark && typeof mark.line === "number" && typeof mark.column === "number") {
        const reason = (err as { reason?: unknown }).reason;
        // js-yaml's fixed reasons are plain words; one that quotes the input (a tag, a directive) is left out.
        const why = typeof reason === "string" && /^[A-Za-z ,()-]+$/.test(reason) ? `: ${reason}` : "";
        return `${source} is not valid YAML (line ${mark.line + 1}, column ${mark.column + 1}${why}); fix it and set it again`;
    }
    return `${source} could not be loaded as a kubeconfig (${err instanceof Error ? err.name : typeof err}); check it with kubectl --kubeconfig <file> config view`;
}

/**
 * Why there is no default kubeconfig, or undefined when there is one (or the process runs in a
 * pod, whose service account the client uses). Without this the client falls back to
 * http://localhost:8080 and fails with a TLS message that names nothing the user did.
 */
export function noDefaultKubeconfig(env: NodeJS.ProcessEnv, home: string, exists: (file: string) => boolean): string | undefined {
    if (env.KUBERNETES_SERVICE_HOST) return undefined;
    const listed = (env.KUBECONFIG ?? "").split(path.delimiter).filter(Boolean);
    if (listed.length > 0) {
        return listed.some(exists)
            ? undefined
            : `no kubeconfig: KUBECONFIG names ${listed.join(", ")}, and no such file exists; give one with --kubeconfig <file> or fix KUBECONFIG`;
    }
    const file = path.join(home, ".kube", "config");
    return exists(file)
        ? undefined
        : `no kubeconfig: KUBECONFIG is not set and ${file} does not exist; give one with --kubeconfig <file>, set KUBECONFIG, or create ${file}`;
}
