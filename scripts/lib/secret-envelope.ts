/**
 * Pulumi's secret envelopes in recorded inputs: `{ [SPECIAL_SIG_KEY]: <secret signature>, value }`
 * (sdk/nodejs/runtime/rpc.ts), as the monitor receives them.
 */
import { isPlainObject } from "./rendered";

/** The key that marks a special value on the wire (a secret here). */
const SPECIAL_SIG_KEY = "4dabf18193072939515e22adb298388d";

/** Strips Pulumi's secret envelopes, keeping the plain values. */
export function unwrapSecrets(value: unknown): unknown {
    if (Array.isArray(value)) return value.map(unwrapSecrets);
    if (isPlainObject(value)) {
        if (value[SPECIAL_SIG_KEY] !== undefined && "value" in value) return unwrapSecrets(value.value);
        return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, unwrapSecrets(v)]));
    }
    return value;
}

/** True when the value at `pathParts` in the raw inputs is (inside) a secret envelope. */
export function isSecretAt(raw: unknown, pathParts: readonly (string | number)[]): boolean {
    let current: unknown = raw;
    for (const part of pathParts) {
        if (isPlainObject(current) && current[SPECIAL_SIG_KEY] !== undefined) return true;
        if (current === null || typeof current !== "object") return false;
        current = (current as Record<string | number, unknown>)[part];
    }
    return isPlainObject(current) && current[SPECIAL_SIG_KEY] !== undefined;
}
