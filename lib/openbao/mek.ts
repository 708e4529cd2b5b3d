import * as crypto from "node:crypto";

/**
 * The master encryption keys as migration 03_setup_shared_secrets.sh stores them in
 * `services/all/kv/encryption/keys/stored_data` (utils/encryption_setup.sh): `keys` and
 * `private_jwks` are base64 of a JWK set `{"keys": [...]}` of A256GCM `oct` keys (the same kids,
 * different key material), `current_kid` the kid in use, `jwe_mapping` `{"payload_jwe_kid": kid}`.
 * ESS takes the first key of `keys` as the current MEK and all of them to unwrap older NEKs;
 * api-keys decrypts with `private_jwks`; nvcf-api reads `keys` and `current_kid`.
 */
export interface MekData {
    readonly keys: string;
    readonly current_kid: string;
    readonly jwe_mapping: string;
    readonly private_jwks: string;
}

export interface OctJwk {
    readonly kty: "oct";
    readonly use: "enc";
    readonly kid: string;
    readonly k: string;
    readonly alg: "A256GCM";
}

const FIELDS = ["keys", "current_kid", "jwe_mapping", "private_jwks"] as const;

/** A time-based (version 1) UUID: ESS refuses a current kid of any other version and reads its time. */
export function uuidV1(now: Date, random: Buffer = crypto.randomBytes(8)): string {
    // 100-ns intervals since 1582-10-15, the UUID epoch.
    const t = BigInt(now.getTime()) * 10000n + 0x01b21dd213814000n;
    const low = (t & 0xffffffffn).toString(16).padStart(8, "0");
    const mid = ((t >> 32n) & 0xffffn).toString(16).padStart(4, "0");
    const high = (((t >> 48n) & 0x0fffn) | 0x1000n).toString(16).padStart(4, "0");
    const seq = (((random[0] << 8) | random[1]) & 0x3fff) | 0x8000;
    // A random node ID has the multicast bit set (RFC 9562), so it never claims a real MAC address.
    const node = Buffer.from(random.subarray(2, 8));
    node[0] |= 0x01;
    return `${low}-${mid}-${high}-${seq.toString(16).padStart(4, "0")}-${node.toString("hex")}`;
}

/**
 * The node ID of the kid rotation `rotation` adds, derived from the rotation number alone (a
 * generator may choose the node; the multicast bit says it is no MAC address). kv-v2's data write
 * cannot also write the rotation's mark (custom metadata has its own endpoint), so the key carries
 * which rotation made it: a rerun after a stop between the two writes finds it in the key set.
 * ESS reads only a kid's version and time (CryptoProperties.java), so it sees an ordinary kid.
 */
function rotationNode(rotation: number): Buffer {
    const node = crypto.createHash("sha256").update(`nvcf-self-managed MEK rotation ${rotation}`).digest().subarray(0, 6);
    node[0] |= 0x01;
    return node;
}

/** The kid of the key rotation `rotation` adds: a version 1 UUID of `now`, its node naming the rotation. */
export function rotationKid(now: Date, rotation: number, clockSeq: Buffer = crypto.randomBytes(2)): string {
    return uuidV1(now, Buffer.concat([clockSeq.subarray(0, 2), rotationNode(rotation)]));
}

/** The kid among `kids` that rotation `rotation` added, if one did. */
export function kidOfRotation(kids: readonly string[], rotation: number): string | undefined {
    const node = rotationNode(rotation).toString("hex");
    return kids.find((kid) => /^[0-9a-f]{8}-[0-9a-f]{4}-1[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(kid) && kid.endsWith(`-${node}`));
}

/** A new 256-bit key as encryption_setup.sh's generate_jwk makes it. */
export function newJwk(kid: string, key: Buffer = crypto.randomBytes(32)): OctJwk {
    return { kty: "oct", use: "enc", kid, k: key.toString("base64url"), alg: "A256GCM" };
}

function jwkSet(field: string, value: string): OctJwk[] {
    let parsed: unknown;
    try {
        parsed = JSON.parse(Buffer.from(value, "base64").toString("utf8"));
    } catch {
        throw new Error(`${field} is not base64 of a JSON JWK set`);
    }
    const keys = (parsed as { keys?: unknown })?.keys;
    if (!Array.isArray(keys) || keys.length === 0) throw new Error(`${field} holds no keys`);
    for (const k of keys as Record<string, unknown>[]) {
        if (k?.kty !== "oct" || typeof k.kid !== "string" || typeof k.k !== "string") {
            throw new Error(`${field} holds a key that is not an oct JWK with a kid and a k`);
        }
    }
    return keys as OctJwk[];
}

const encode = (keys: readonly OctJwk[]) => Buffer.from(JSON.stringify({ keys })).toString("base64");

/** The stored fields, checked: what ESS, api-keys and nvcf-api need of them (the key material never in a message). */
export function readMek(data: Readonly<Record<string, unknown>>): { data: MekData; kids: string[] } {
    for (const f of FIELDS) if (typeof data[f] !== "string") throw new Error(`field ${f} is missing`);
    const d = data as unknown as MekData;
    const keys = jwkSet("keys", d.keys);
    const priv = jwkSet("private_jwks", d.private_jwks);
    const kids = keys.map((k) => k.kid);
    if (kids[0] !== d.current_kid)
        throw new Error(`current_kid ${d.current_kid} is not the first key of keys (${kids[0]}), which ESS uses`);
    const missing = kids.filter((kid) => !priv.some((p) => p.kid === kid));
    if (missing.length > 0) throw new Error(`private_jwks has no key for ${missing.join(", ")}`);
    return { data: d, kids };
}

/**
 * NVIDIA's runbook, with one change: the new key goes first into `keys` (ESS's current MEK) and,
 * with its own key material, first into `private_jwks`; every old key stays in both, because data
 * and NEKs written before are decrypted by their kid. The runbook writes `private_jwks` as a copy of
 * `keys`, which would replace api-keys' old key material under the same kids.
 */
export function rotateMek(current: MekData, kid: string, key = newJwk(kid), payloadKey = newJwk(kid)): MekData {
    const keys = jwkSet("keys", current.keys);
    const priv = jwkSet("private_jwks", current.private_jwks);
    return {
        keys: encode([key, ...keys]),
        current_kid: kid,
        jwe_mapping: JSON.stringify({ payload_jwe_kid: kid }),
        private_jwks: encode([payloadKey, ...priv]),
    };
}
