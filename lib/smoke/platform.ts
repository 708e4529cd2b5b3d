import { FUNCTIONS, functionVersionPath, type FunctionDto } from "../nvcf-api/contract";
import { call, mintAdminToken, type Endpoint } from "../icms/icms";
import { excerpt, jsonBody, type HttpResponse } from "../http/client";
import { messageOf } from "../text/message-of";

/** Where the platform smoke check reaches the control plane: through the Gateway, as a user's first call does. */
export interface PlatformTarget {
    /** The NVCF API (`api.<domain>`). */
    readonly apiUrl: string;
    readonly apiHostHeader?: string;
    /** API Keys (`api-keys.<domain>`), where the admin token is minted when none is configured. */
    readonly apiKeysUrl: string;
    readonly apiKeysHostHeader?: string;
    /** An image the default account's registry credential can read: the API checks it in the registry on create. */
    readonly functionImage: string;
    readonly timeoutSeconds: number;
    readonly retries: number;
}

export interface PlatformStep {
    readonly step: string;
    readonly ok: boolean;
    readonly detail: string;
}

export interface PlatformRun {
    readonly ok: boolean;
    readonly steps: readonly PlatformStep[];
    readonly startedAt: string;
    readonly completedAt: string;
}

/** The smoke check's function: a fixed name, so a run that died half-way leaves one the next run finds and deletes. */
export const SMOKE_FUNCTION = "nvcf-self-managed-smoke";

const endpoint = (url: string, hostHeader: string | undefined, t: PlatformTarget, retryDelayMs?: number): Endpoint => ({
    url,
    ...(hostHeader ? { hostHeader } : {}),
    timeoutMs: t.timeoutSeconds * 1000,
    retries: t.retries,
    ...(retryDelayMs !== undefined ? { retryDelayMs } : {}),
});

/** Why an answer is not the documented one, with what to look at; never the token. */
function refusal(what: string, res: HttpResponse, scope: string): string {
    const hint =
        res.status === 401 || res.status === 403
            ? ` (the token needs the ${scope} scope: the admin issuer proxy's has it; a configured nvcfAdminToken may not)`
            : res.status === 404 && /Unknown client_id/i.test(res.body)
              ? " (the token's client is not linked to an account: did the account bootstrap run?)"
              : "";
    // The API's errors are Spring ProblemDetails: `detail` says what was wrong.
    const detail = jsonBody<{ detail?: unknown }>(res)?.detail;
    return `${what} answered HTTP ${res.status}${hint}: ${excerpt(typeof detail === "string" ? detail : res.body, 300) || "no body"}`;
}

/**
 * The path of a user's first call, as far as it goes without a GPU: an admin token (configured,
 * else minted at API Keys as `nvcf-cli init` does), the NVCF API through the Gateway, a function
 * created (the API checks its image in the registry with the account's credential) and deleted.
 * Stops at the first step that fails; a function it created is deleted whatever follows.
 */
export async function platformSmoke(
    target: PlatformTarget,
    configuredToken: string | undefined,
    say: (line: string) => void,
    retryDelayMs?: number,
): Promise<PlatformRun> {
    const startedAt = new Date().toISOString();
    const steps: PlatformStep[] = [];
    const step = (name: string, ok: boolean, detail: string) => {
        steps.push({ step: name, ok, detail });
        say(`platform smoke: ${name}: ${ok ? "" : "FAILED: "}${detail}`);
        return ok;
    };
    const done = () => ({ ok: steps.every((s) => s.ok), steps, startedAt, completedAt: new Date().toISOString() });
    const api = endpoint(target.apiUrl, target.apiHostHeader, target, retryDelayMs);
    const request = (method: "GET" | "POST" | "DELETE", path: string, token: string, body?: unknown) =>
        call(api, method, path, token, body);
    const attempt = async <T>(name: string, work: () => Promise<T>): Promise<T | undefined> => {
        try {
            return await work();
        } catch (err) {
            step(name, false, messageOf(err));
            return undefined;
        }
    };

    const token = configuredToken
        ? (step("admin token", true, "nvcfAdminToken from the stack"), configuredToken)
        : await attempt("admin token", async () => {
              const minted = await mintAdminToken(endpoint(target.apiKeysUrl, target.apiKeysHostHeader, target, retryDelayMs));
              step("admin token", true, `minted at ${target.apiKeysUrl.replace(/\/$/, "")}/v1/admin/keys`);
              return minted;
          });
    if (!token) return done();

    const listUrl = `${target.apiUrl.replace(/\/$/, "")}${FUNCTIONS.path}`;
    const listed = await attempt("API through the Gateway", async () => {
        const res = await request("GET", `${FUNCTIONS.path}?visibility=private`, token);
        const functions = jsonBody<{ functions?: unknown }>(res)?.functions;
        if (res.status !== 200 || !Array.isArray(functions)) {
            step("API through the Gateway", false, refusal(`GET ${listUrl}`, res, FUNCTIONS.listScope));
            return undefined;
        }
        step("API through the Gateway", true, `GET ${listUrl} answered 200 (${functions.length} function versions)`);
        return functions as Partial<FunctionDto>[];
    });
    if (!listed) return done();

    // Left by a run that stopped between create and delete: it would hold one of the account's function slots.
    for (const old of listed.filter((f) => f.name === SMOKE_FUNCTION && f.id && f.versionId)) {
        const res = await attempt("earlier smoke function removed", () =>
            request("DELETE", functionVersionPath(old.id!, old.versionId!), token),
        );
        if (!res) return done();
        if (res.status !== 204 && res.status !== 404) {
            step(
                "earlier smoke function removed",
                false,
                refusal(`DELETE ${functionVersionPath(old.id!, old.versionId!)}`, res, FUNCTIONS.deleteScope),
            );
            return done();
        }
        step("earlier smoke function removed", true, `${old.id}/${old.versionId}, left by a run that stopped half-way`);
    }

    const created = await attempt("function created", async () => {
        const res = await request("POST", FUNCTIONS.path, token, {
            name: SMOKE_FUNCTION,
            // Never deployed: the URL and port only have to be valid.
            inferenceUrl: "/echo",
            inferencePort: 8000,
            containerImage: target.functionImage,
            description: "created and deleted by the nvcf-self-managed smoke check",
        });
        const fn = jsonBody<{ function?: Partial<FunctionDto> }>(res)?.function;
        if (res.status !== 200 || !fn?.id || !fn.versionId) {
            const registry =
                res.status === 400 && /registry|hostname|artifact/i.test(res.body)
                    ? " (checks.smoke.functionImage must be an image the default account's registry credential can read)"
                    : "";
            step("function created", false, `${refusal(`POST ${listUrl}`, res, FUNCTIONS.createScope)}${registry}`);
            return undefined;
        }
        step("function created", true, `${fn.id}/${fn.versionId} (${target.functionImage}), ${fn.status ?? "no status"}`);
        return { id: fn.id, versionId: fn.versionId };
    });
    if (!created) return done();

    await attempt("function deleted", async () => {
        const path = functionVersionPath(created.id, created.versionId);
        const res = await request("DELETE", path, token);
        if (res.status !== 204) step("function deleted", false, refusal(`DELETE ${path}`, res, FUNCTIONS.deleteScope));
        else step("function deleted", true, `${created.id}/${created.versionId}`);
    });
    return done();
}

/** `checks.smoke` as the stack file gives it. */
export interface SmokeSettings {
    readonly helmTests: boolean;
    readonly platform: boolean;
    readonly functionImage?: string;
    readonly apiURL?: string;
    readonly apiHostHeader?: string;
    readonly apiKeysURL?: string;
    readonly apiKeysHostHeader?: string;
    readonly timeoutSeconds: number;
    readonly pollSeconds: number;
    readonly retries: number;
}

/** What the smoke check is declared with; undefined when both parts are off (no check at all). */
export function smokePlan(
    domain: string,
    smoke: SmokeSettings,
): { helmTests: boolean; platform?: PlatformTarget; timeoutSeconds: number; pollSeconds: number } | undefined {
    if (!smoke.helmTests && !smoke.platform) return undefined;
    return {
        helmTests: smoke.helmTests,
        ...(smoke.platform ? { platform: platformTarget(domain, smoke) } : {}),
        timeoutSeconds: smoke.timeoutSeconds,
        pollSeconds: smoke.pollSeconds,
    };
}

/** The platform check's endpoints from `checks.smoke`, by default the routes' hostnames as registration reaches them. */
function platformTarget(domain: string, smoke: SmokeSettings): PlatformTarget {
    if (!smoke.functionImage) throw new Error("checks.smoke.platform needs checks.smoke.functionImage");
    return {
        apiUrl: smoke.apiURL ?? `http://api.${domain}`,
        ...(smoke.apiHostHeader ? { apiHostHeader: smoke.apiHostHeader } : {}),
        apiKeysUrl: smoke.apiKeysURL ?? `http://api-keys.${domain}`,
        ...(smoke.apiKeysHostHeader ? { apiKeysHostHeader: smoke.apiKeysHostHeader } : {}),
        functionImage: smoke.functionImage,
        // Each request's deadline: the whole run is a handful of them.
        timeoutSeconds: Math.min(smoke.timeoutSeconds, 60),
        retries: smoke.retries,
    };
}
