/**
 * The secrets both sides of a comparison with NVIDIA's bundle are given: the program's stack
 * secrets, and Helmfile's secrets file holding what the program derives from them. A module of
 * its own (plain data), so the install benchmark uses it without loading the test harness.
 */
import type { Plain } from "../../config/model/deep-merge";

/** The stack's secrets: the NGC key, and a fixed Cassandra password instead of a generated one. */
export const NGC_KEY = "parity-ngc-key";
export const CASSANDRA_PASSWORD = "parity-cassandra-password";
export const PULL_SECRET = "nvcr-pull-secret";
const credential = Buffer.from(`$oauthtoken:${NGC_KEY}`).toString("base64");

/** The secrets file of the bundle, holding what the program derives from its secrets (NVIDIA's template's keys). */
export function bundleSecrets(): Plain {
    const entry = (registryHostname: string, artifactType: string, description: string) => ({
        registryHostname,
        secret: { name: "nvcr-containers", value: credential },
        artifactTypes: [artifactType],
        tags: [],
        description,
    });
    return {
        openbao: {
            migrations: {
                env: [
                    { name: "DEFAULT_CASSANDRA_PASSWORD", value: CASSANDRA_PASSWORD },
                    { name: "NVCF_API_SIDECARS_IMAGE_PULL_SECRET", value: credential },
                    { name: "ADMIN_CLIENT_ID", value: "ncp" },
                ],
            },
        },
        api: {
            accountBootstrap: {
                registryCredentials: [
                    entry("nvcr.io", "CONTAINER", "Container registry"),
                    entry("helm.ngc.nvidia.com", "HELM", "Helm chart registry"),
                ],
            },
        },
    };
}
