import { randomBytes } from "node:crypto";
import { defineProvider } from "./kit";

/** The key's state: 32 random bytes as hex, a secret output. */
export interface ReceiptKeyOutputs {
    readonly key: string;
}

/**
 * Makes the key once, in the provider's own process, and keeps it for the stack's life: no input,
 * so nothing ever replaces it. A dynamic resource, not a RandomPassword, so a stack whose
 * Cassandra password is configured needs no random provider plugin.
 */
export const ReceiptKeyProvider = defineProvider<object, ReceiptKeyOutputs>({
    describe: () => "the bundle receipt's key",
    importRefused: "importing the receipt key is not supported; declare the bundle instead",
    id: () => "bundle-receipt-key",
    create: async () => ({ key: randomBytes(32).toString("hex") }),
});
