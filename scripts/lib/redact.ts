import { compareStrings, isPlainObject, SECRET } from "./rendered";

// Pulumi's wire signatures (sdk/nodejs/runtime/rpc.ts): the key marks a special value, its
// value says which one (secret, asset, archive, resource reference).
const SPECIAL_SIG_KEY = "4dabf18193072939515e22adb298388d";
const SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270";
const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

/**
 * A plain, canonical copy of inputs as the engine receives them: each secret envelope becomes
 * SECRET (the SDK wraps exactly the secret leaves, so the rest of a Helm release's values stays
 * readable), an unknown becomes "[unknown]", and object keys are sorted so that the bytes do
 * not depend on the order the program built them in.
 */
export function redact(value: unknown): unknown {
    if (Array.isArray(value)) return value.map(redact);
    if (isPlainObject(value)) {
        if (value[SPECIAL_SIG_KEY] === SECRET_SIG) return SECRET;
        const out: Record<string, unknown> = {};
        for (const key of Object.keys(value).sort(compareStrings)) {
            if (value[key] !== undefined) out[key] = redact(value[key]);
        }
        return out;
    }
    return value === UNKNOWN ? "[unknown]" : value;
}
