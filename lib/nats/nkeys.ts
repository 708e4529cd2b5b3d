import * as crypto from "node:crypto";

/**
 * NATS user NKeys as nats-io/nkeys encodes them (strkey.go, crc16.go) and the nats chart's
 * `nvcf-nats.genNkeyPair` makes them: an ed25519 key pair; the public key is `U…` (prefix byte
 * 20<<3), the seed `SU…` (18<<3 then the user prefix); each is base32 (RFC 4648, no padding) of
 * the prefix, the key and a CRC16-XMODEM checksum, little-endian.
 */
export interface UserNkey {
    /** `U…`, 56 characters. */
    readonly publicKey: string;
    /** `SU…`, 58 characters: the secret. */
    readonly seed: string;
}

const PREFIX_SEED = 18 << 3;
const PREFIX_USER = 20 << 3;
const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

export function crc16(data: Uint8Array): number {
    let crc = 0;
    for (const byte of data) {
        crc ^= byte << 8;
        for (let i = 0; i < 8; i++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
    }
    return crc;
}

function base32(data: Uint8Array): string {
    let out = "";
    let bits = 0;
    let value = 0;
    for (const byte of data) {
        value = (value << 8) | byte;
        bits += 8;
        while (bits >= 5) {
            out += ALPHABET[(value >>> (bits - 5)) & 31];
            bits -= 5;
        }
    }
    if (bits > 0) out += ALPHABET[(value << (5 - bits)) & 31];
    return out;
}

function encode(prefix: readonly number[], key: Uint8Array): string {
    const body = Buffer.concat([Buffer.from(prefix), Buffer.from(key)]);
    const sum = crc16(body);
    return base32(Buffer.concat([body, Buffer.from([sum & 0xff, sum >> 8])]));
}

/** The ed25519 private key of a 32-byte seed: PKCS #8 of one is a fixed 16-byte header and the seed. */
export function ed25519PrivateKey(seed: Buffer): crypto.KeyObject {
    const header = Buffer.from("302e020100300506032b657004220420", "hex");
    return crypto.createPrivateKey({ key: Buffer.concat([header, seed]), format: "der", type: "pkcs8" });
}

/** The user key pair of a 32-byte ed25519 seed (a new random one by default). */
export function userNkey(seed: Buffer = crypto.randomBytes(32)): UserNkey {
    const spki = crypto.createPublicKey(ed25519PrivateKey(seed)).export({ format: "der", type: "spki" });
    const publicKey = spki.subarray(spki.length - 32);
    return {
        publicKey: encode([PREFIX_USER], publicKey),
        seed: encode([PREFIX_SEED | (PREFIX_USER >> 5), (PREFIX_USER & 31) << 3], seed),
    };
}
