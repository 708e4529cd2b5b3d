import { z } from "zod";
import { section } from "./schema";
import * as gr from "./grammar";

/**
 * `checks`: preflight before the first release, and the health gate after the last. Every
 * group is on by default; turning one off skips it (for a check that cannot pass on a cluster
 * the user knows is fine, such as one without GPUs yet).
 */
export const checksSchema = z
    .strictObject({
        preflight: section({
            /** All of preflight, on every cluster. */
            enabled: z.boolean().default(true),
            /** The API server answers and runs Kubernetes 1.28 or later. */
            kubernetesVersion: z.boolean().default(true),
            /** The kubeconfig's identity has cluster-admin rights. */
            clusterAdmin: z.boolean().default(true),
            /** Control plane: the Gateway API CRDs and the configured Gateways with their listeners. */
            gatewayApi: z.boolean().default(true),
            /** Control plane: `global.storageClass`, or a default StorageClass. */
            storageClass: z.boolean().default(true),
            /** GPU clusters: nodes advertise nvidia.com/gpu, or the GPU Operator is installed. */
            gpu: z.boolean().default(true),
            /** Each request's deadline. */
            timeoutSeconds: z.number().int().min(1).max(600).default(30),
        }),
        healthGate: section({
            /** All of the gate, on every cluster. */
            enabled: z.boolean().default(true),
            /** How long `up` waits for every check to pass before it fails. */
            timeoutSeconds: z.number().int().min(1).max(7200).default(600),
            /** The pause between two rounds of checks. */
            pollSeconds: z.number().int().min(1).max(300).default(5),
            /** The account bootstrap Job (or its Helm hook record) succeeded. */
            accountBootstrap: z.boolean().default(true),
            /** OpenBao is initialised and unsealed. */
            openbao: z.boolean().default(true),
            /** Every HTTPRoute in the Gateways' namespaces is Accepted. */
            routes: z.boolean().default(true),
            /** Every Deployment and StatefulSet in the releases' namespaces is ready. */
            workloads: z.boolean().default(true),
            /** Each compute plane's NVCFBackend is healthy and its operator's and agent's pods Ready. */
            computePlanes: z.boolean().default(true),
            /** With the admin issuer proxy or its route off: the edge answers 404 for the admin route. */
            adminRouteAtEdge: z.boolean().default(true),
            /** In NATS token mode: report the workers that still hold the shared NKey (information, never a failure). */
            sharedNkey: z.boolean().default(true),
            /** The load balancer address the edge check dials, when the shared Gateway reports none. */
            edgeAddress: z.string().trim().min(1).optional(),
            /** A PEM CA the edge's certificate is checked against besides the system's (a private PKI). */
            edgeCaCert: z.string().trim().min(1).optional(),
        }),
        /**
         * After the health gate, on the control plane: the charts' own `helm test` hooks, and the
         * platform check of a user's first call through the Gateway (off: it needs the deployer to
         * reach the Gateway and an image the account can read).
         */
        smoke: section({
            /** Each release's test hooks (function-autoscaler's and invocation-service's at the pinned charts). */
            helmTests: z.boolean().default(true),
            /** An admin token, the NVCF API through the Gateway, a function created and deleted. */
            platform: z.boolean().default(false),
            /** The function's container image: the API checks it in its registry with the default account's credential. */
            functionImage: gr.grammarString(gr.imageReference).optional(),
            /** The NVCF API as this machine reaches it; default http://api.<domain>. */
            apiURL: gr.url(/^https?$/).optional(),
            /** `Host:` when apiURL dials the load balancer's address. */
            apiHostHeader: gr.grammarString(gr.hostHeader).optional(),
            /** API Keys, where the admin token is minted; default http://api-keys.<domain>. */
            apiKeysURL: gr.url(/^https?$/).optional(),
            apiKeysHostHeader: gr.grammarString(gr.hostHeader).optional(),
            /** How long each test Pod may run, and each request may take. */
            timeoutSeconds: z.number().int().min(10).max(3600).default(300),
            /** How often a test Pod is looked at. */
            pollSeconds: z.number().int().min(1).max(60).default(2),
            /** Retries of each request of the platform check. */
            retries: z.number().int().min(0).max(10).default(2),
        }),
    })
    .prefault({});

export type ChecksConfig = z.infer<typeof checksSchema>;
