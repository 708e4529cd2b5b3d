import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { crc16, userNkey } from "../lib/nats/nkeys";
import { rawSeed, unbase32 } from "./support/nkey-seed";

// NATS user NKeys as nats-io/nkeys encodes them, for the shared NKey's rotation.

describe("user NKeys", () => {
    test("the nkeys README's user seed gives its public key, and encodes back to itself", () => {
        // nats-io/nkeys README and nk's: `nk -gen user` / `nk -inkey user.seed -pubout`.
        const seed = "SUAKYRHVIOREXV7EUZTBHUHL7NUMHPMAS7QMDU3GTIUWEI5LDNOXD43IZY";
        const raw = rawSeed(seed);
        assert.deepEqual(userNkey(raw), { seed, publicKey: "UD466L6EBCM3YY5HEGHJANNTN4LSKTSUXTH7RILHCKEQMQHTBNLHJJXT" });
    });

    test("a new pair: a 58-character SU seed and a 56-character U key, each with a valid checksum", () => {
        const a = userNkey();
        const b = userNkey();
        assert.notEqual(a.seed, b.seed);
        assert.match(a.seed, /^SU[A-Z2-7]{56}$/);
        assert.match(a.publicKey, /^U[A-Z2-7]{55}$/);
        for (const s of [a.seed, a.publicKey]) {
            const bytes = unbase32(s);
            const body = bytes.subarray(0, bytes.length - 2);
            assert.equal(crc16(body), bytes.readUInt16LE(bytes.length - 2), `${s.slice(0, 2)}…: checksum`);
        }
    });

    test("CRC16-XMODEM: the standard check value", () => {
        assert.equal(crc16(Buffer.from("123456789")), 0x31c3);
    });
});
