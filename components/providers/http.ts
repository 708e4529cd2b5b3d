/**
 * The one small HTTP client of the dynamic providers: JSON in and out, a Host header override
 * (dialling a bare gateway), per-request TLS settings, a timeout, and bounded retries of
 * transient failures (5xx, connection resets). Built on node:http(s), not fetch, because fetch
 * can set neither the Host header nor per-request TLS options.
 *
 * Dynamic providers are serialized with their closures: Node modules are required inside the
 * functions, and nothing here holds a secret.
 */

export interface TlsOptions {
    /** PEM CA bundle to trust. */
    readonly ca?: string | Buffer;
    readonly cert?: string | Buffer;
    readonly key?: string | Buffer;
    /** false turns certificate verification off (only when the user asked for it). */
    readonly rejectUnauthorized?: boolean;
}

export interface HttpRequest {
    readonly method: "GET" | "POST" | "PUT" | "DELETE";
    readonly url: string;
    /** Sent as `Host:` instead of the URL's host (TLS SNI stays the URL's). */
    readonly hostHeader?: string;
    readonly headers?: Readonly<Record<string, string>>;
    /** Serialized as JSON unless already a string. */
    readonly body?: unknown;
    readonly timeoutMs?: number;
    /** Extra attempts after a transient failure. */
    readonly retries?: number;
    /** Pause before retry n is n * retryDelayMs. */
    readonly retryDelayMs?: number;
    readonly tls?: TlsOptions;
}

export interface HttpResponse {
    readonly status: number;
    readonly headers: Readonly<Record<string, string | string[] | undefined>>;
    readonly body: string;
}

/** A request that failed: no response (`status` undefined) or a final error status. */
export class HttpError extends Error {
    readonly status?: number;
    readonly body?: string;
    readonly code?: string;
    constructor(message: string, details: { status?: number; body?: string; code?: string }) {
        super(message);
        this.name = "HttpError";
        this.status = details.status;
        this.body = details.body;
        this.code = details.code;
    }
}

const TRANSIENT_CODES = ["ECONNRESET", "EPIPE", "ETIMEDOUT", "ECONNABORTED", "EAI_AGAIN", "TIMEOUT"];

/** True for failures worth another attempt. */
export function isTransient(err: unknown): boolean {
    if (!(err instanceof HttpError)) return false;
    if (err.status !== undefined) return err.status >= 500;
    return err.code !== undefined && TRANSIENT_CODES.includes(err.code);
}

/**
 * Sends a request; resolves with any HTTP status (the caller decides what a 404 means).
 * Rejects with an HttpError when no response came, or when a 5xx persists after the retries.
 */
export async function httpRequest(req: HttpRequest): Promise<HttpResponse> {
    const attempts = 1 + Math.max(0, req.retries ?? 2);
    let last: unknown;
    for (let attempt = 1; attempt <= attempts; attempt++) {
        try {
            const res = await sendOnce(req);
            if (res.status >= 500 && attempt < attempts) {
                last = new HttpError(`${req.method} ${req.url}: HTTP ${res.status}`, { status: res.status, body: res.body });
            } else {
                return res;
            }
        } catch (err) {
            last = err;
            if (!isTransient(err) || attempt === attempts) throw err;
        }
        await new Promise((resolve) => setTimeout(resolve, attempt * (req.retryDelayMs ?? 500)));
    }
    throw last;
}

function sendOnce(req: HttpRequest): Promise<HttpResponse> {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const http = require("node:http") as typeof import("node:http");
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const https = require("node:https") as typeof import("node:https");
    const url = new URL(req.url);
    const secure = url.protocol === "https:";
    const body = req.body === undefined ? undefined : typeof req.body === "string" ? req.body : JSON.stringify(req.body);
    const headers: Record<string, string> = {
        Accept: "application/json",
        ...(body !== undefined ? { "Content-Type": "application/json", "Content-Length": String(Buffer.byteLength(body)) } : {}),
        ...req.headers,
        ...(req.hostHeader ? { Host: req.hostHeader } : {}),
    };
    const timeoutMs = req.timeoutMs ?? 30_000;
    return new Promise((resolve, reject) => {
        const options = {
            method: req.method,
            hostname: url.hostname.replace(/^\[|\]$/g, ""),
            port: url.port || (secure ? 443 : 80),
            path: `${url.pathname}${url.search}`,
            headers,
            ...(secure ? { ...req.tls, servername: isIp(url.hostname) ? undefined : url.hostname } : {}),
        };
        const request = (secure ? https : http).request(options, (res) => {
            const chunks: Buffer[] = [];
            res.on("data", (c: Buffer) => chunks.push(c));
            res.on("end", () =>
                resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString("utf8") }),
            );
            res.on("error", (err: NodeJS.ErrnoException) =>
                reject(new HttpError(`${req.method} ${req.url}: ${err.message}`, { code: err.code })),
            );
        });
        request.setTimeout(timeoutMs, () => {
            request.destroy(new HttpError(`${req.method} ${req.url}: no answer within ${timeoutMs} ms`, { code: "TIMEOUT" }));
        });
        request.on("error", (err: NodeJS.ErrnoException) => {
            reject(err instanceof HttpError ? err : new HttpError(`${req.method} ${req.url}: ${err.message}`, { code: err.code }));
        });
        if (body !== undefined) request.write(body);
        request.end();
    });
}

function isIp(host: string): boolean {
    return /^[0-9.]+$/.test(host) || host.includes(":") || host.startsWith("[");
}

/** The body as JSON, or undefined when it is not JSON. */
export function jsonBody<T>(res: HttpResponse): T | undefined {
    try {
        return JSON.parse(res.body) as T;
    } catch {
        return undefined;
    }
}

/** A short, single-line excerpt of an error body for messages. */
export function excerpt(body: string | undefined, max = 300): string {
    const text = (body ?? "").replace(/\s+/g, " ").trim();
    return text.length > max ? `${text.slice(0, max)}...` : text;
}
