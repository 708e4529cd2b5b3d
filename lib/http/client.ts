import * as http from "node:http";
import * as https from "node:https";
/**
 * The one small HTTP client of the dynamic providers: JSON in and out, a Host header override
 * (dialling a bare gateway), per-request TLS settings, a deadline per attempt (idle and
 * overall), and bounded retries of transient failures (5xx, 429, connection resets), honouring
 * `Retry-After` up to a bound. Built on node:http(s), not fetch, because fetch
 * can set neither the Host header nor per-request TLS options.
 *
 * Nothing here holds a secret.
 */

export interface TlsOptions {
    /** PEM CA bundle to trust (instead of the system's). */
    readonly ca?: string | Buffer | (string | Buffer)[];
    readonly cert?: string | Buffer;
    readonly key?: string | Buffer;
    /** false turns certificate verification off (only when the user asked for it). */
    readonly rejectUnauthorized?: boolean;
}

export interface HttpRequest {
    readonly method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
    readonly url: string;
    /** Sent as `Host:` instead of the URL's host (TLS SNI stays the URL's). */
    readonly hostHeader?: string;
    /** Dial this address instead of resolving the URL's host, as `curl --resolve` does: TLS SNI and `Host:` stay the URL's. */
    readonly connectTo?: string;
    readonly headers?: Readonly<Record<string, string>>;
    /** Serialized as JSON unless already a string. */
    readonly body?: unknown;
    /** Each attempt's deadline: for the whole exchange, and for any silence within it. */
    readonly timeoutMs?: number;
    /** Extra attempts after a transient failure. */
    readonly retries?: number;
    /** Pause before retry n is n * retryDelayMs (unless the server's `Retry-After` says otherwise). */
    readonly retryDelayMs?: number;
    /** The longest `Retry-After` waited out; a longer one fails the request at once. Default 60 s. */
    readonly maxRetryAfterMs?: number;
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
    if (err.status !== undefined) return err.status >= 500 || err.status === 429;
    return err.code !== undefined && TRANSIENT_CODES.includes(err.code);
}

/** `Retry-After` in ms (delta-seconds or an HTTP date); undefined when absent or unreadable. */
export function retryAfterMs(res: HttpResponse, now = Date.now()): number | undefined {
    const raw = res.headers["retry-after"];
    const value = (Array.isArray(raw) ? raw[0] : raw)?.trim();
    if (!value) return undefined;
    if (/^[0-9]+$/.test(value)) return Number(value) * 1000;
    const date = Date.parse(value);
    return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * Sends a request; resolves with any HTTP status (the caller decides what a 404 means).
 * Rejects with an HttpError when no response came, when a 5xx or 429 persists after the
 * retries, or when the server asks for a longer pause than `maxRetryAfterMs`.
 */
export async function httpRequest(req: HttpRequest): Promise<HttpResponse> {
    const unsafe = unsafeHeader(req);
    // Node would refuse these too, but with the header's value in some versions' messages.
    if (unsafe)
        throw new HttpError(
            `${req.method} ${req.url}: the ${unsafe} header has characters HTTP does not allow (a line break or control character)`,
            { code: "INVALID_HEADER" },
        );
    const attempts = 1 + Math.max(0, req.retries ?? 2);
    const maxRetryAfter = req.maxRetryAfterMs ?? 60_000;
    let last: unknown;
    for (let attempt = 1; attempt <= attempts; attempt++) {
        let pause = attempt * (req.retryDelayMs ?? 500);
        try {
            const res = await sendOnce(req);
            if ((res.status >= 500 || res.status === 429) && attempt < attempts) {
                last = new HttpError(`${req.method} ${req.url}: HTTP ${res.status}`, { status: res.status, body: res.body });
                const asked = res.status === 429 || res.status === 503 ? retryAfterMs(res) : undefined;
                if (asked !== undefined && asked > maxRetryAfter) {
                    throw new HttpError(
                        `${req.method} ${req.url}: HTTP ${res.status}, retry after ${Math.ceil(asked / 1000)} s, ` +
                            `longer than the ${Math.ceil(maxRetryAfter / 1000)} s this program waits; run again later`,
                        { status: res.status, body: res.body, code: "RETRY_AFTER_TOO_LONG" },
                    );
                }
                if (asked !== undefined) pause = asked;
            } else {
                return res;
            }
        } catch (err) {
            last = err;
            if (!isTransient(err) || attempt === attempts || (err instanceof HttpError && err.code === "RETRY_AFTER_TOO_LONG")) throw err;
        }
        await new Promise((resolve) => setTimeout(resolve, pause));
    }
    throw last;
}

/** The name of a header whose value HTTP forbids (CR, LF, other control characters), if any. */
function unsafeHeader(req: HttpRequest): string | undefined {
    const all: Record<string, string | undefined> = { ...req.headers, ...(req.hostHeader !== undefined ? { Host: req.hostHeader } : {}) };
    for (const [name, value] of Object.entries(all)) {
        // eslint-disable-next-line no-control-regex -- finding control characters is the point
        if (value !== undefined && /[\u0000-\u0008\u000a-\u001f\u007f]/.test(value)) return name;
    }
    return undefined;
}

function sendOnce(req: HttpRequest): Promise<HttpResponse> {
    const url = new URL(req.url);
    const secure = url.protocol === "https:";
    const body = req.body === undefined ? undefined : typeof req.body === "string" ? req.body : JSON.stringify(req.body);
    const headers: Record<string, string> = {
        Accept: "application/json",
        ...(body !== undefined ? { "Content-Type": "application/json", "Content-Length": String(Buffer.byteLength(body)) } : {}),
        ...req.headers,
        ...(req.connectTo ? { Host: url.host } : {}),
        ...(req.hostHeader ? { Host: req.hostHeader } : {}),
    };
    const timeoutMs = req.timeoutMs ?? 30_000;
    return new Promise((resolve, reject) => {
        let answered = false;
        // Declared before the callbacks that clear it.
        let deadline: ReturnType<typeof setTimeout> | undefined = undefined;
        const options = {
            method: req.method,
            hostname: (req.connectTo ?? url.hostname).replace(/^\[|\]$/g, ""),
            port: url.port || (secure ? 443 : 80),
            path: `${url.pathname}${url.search}`,
            headers,
            ...(secure ? { ...req.tls, servername: isIp(url.hostname) ? undefined : url.hostname } : {}),
        };
        const request = (secure ? https : http).request(options, (res) => {
            answered = true;
            const chunks: Buffer[] = [];
            res.on("data", (c: Buffer) => chunks.push(c));
            res.on("end", () => {
                clearTimeout(deadline);
                resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString("utf8") });
            });
            res.on("error", (err: NodeJS.ErrnoException) =>
                reject(new HttpError(`${req.method} ${req.url}: ${err.message}`, { code: err.code })),
            );
        });
        request.setTimeout(timeoutMs, () => {
            request.destroy(new HttpError(`${req.method} ${req.url}: no answer within ${timeoutMs} ms`, { code: "TIMEOUT" }));
        });
        // The idle timeout alone would wait forever on a server that trickles bytes.
        deadline = setTimeout(() => {
            const what = answered
                ? `the answer did not complete within ${timeoutMs} ms (the server kept sending slowly)`
                : `no answer within ${timeoutMs} ms`;
            const err = new HttpError(`${req.method} ${req.url}: ${what}`, { code: "TIMEOUT" });
            request.destroy(err);
            reject(err);
        }, timeoutMs);
        request.on("close", () => clearTimeout(deadline));
        request.on("error", (err: NodeJS.ErrnoException) => {
            clearTimeout(deadline);
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
export function jsonBody<T>(res: Pick<HttpResponse, "body">): T | undefined {
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
