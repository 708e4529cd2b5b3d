import type { Plain } from "./known";

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/**
 * Why a registry credential is not a raw docker `auth` string, base64("<user>:<password>"), or
 * undefined when it is one. Never quotes the value: it is a secret.
 */
export function rawAuthProblem(value: Plain): string | undefined {
    if (typeof value !== "string") return "is not a string";
    if (value.trimStart().startsWith("{")) return "is JSON (a dockerconfigjson?), not base64(user:password)";
    if (!BASE64.test(value) || value.length % 4 !== 0) return "is not base64";
    const decoded = Buffer.from(value, "base64").toString("utf8");
    if (decoded.trimStart().startsWith("{")) return "decodes to JSON (a dockerconfigjson), not user:password";
    // A trailing newline is what `echo ... | base64` adds; the registry then rejects the password.
    // eslint-disable-next-line no-control-regex -- finding control characters is the point
    if (/[\x00-\x1f\x7f]/.test(decoded)) return "decodes to text with control characters (a trailing newline?)";
    const colon = decoded.indexOf(":");
    if (colon <= 0 || colon === decoded.length - 1) return "does not decode to user:password";
    return undefined;
}
