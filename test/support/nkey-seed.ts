const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

/** RFC 4648 base32 without padding, decoded: the encoding of NATS NKeys. */
export function unbase32(s: string): Buffer {
    let bits = 0;
    let value = 0;
    const out: number[] = [];
    for (const c of s) {
        value = (value << 5) | ALPHABET.indexOf(c);
        bits += 5;
        if (bits >= 8) {
            out.push((value >>> (bits - 8)) & 255);
            bits -= 8;
        }
    }
    return Buffer.from(out);
}

/** The 32-byte ed25519 seed inside a seed NKey (`SU…`): after its two prefix bytes, before the checksum. */
export const rawSeed = (seed: string): Buffer => unbase32(seed).subarray(2, 34);
