import { z } from "zod";
import { dnsLabel, grammarString as g, imageReference, qualifiedName, singleLine, stringMap } from "../../config/model/grammar";
import { SECRET_KEYS } from "../../config/model/keys";
import { envVarName, goDuration, resourceQuantity, stackName } from "./grammar";
import { CONCEAL, secretRef } from "./secret-ref";
import { DEFAULT_WORKSPACE_IMAGE, DEFAULT_WORKSPACE_REQUESTS, MIN_RESYNC_SECONDS, OPERATOR_CHART, RESERVED_ENV } from "./upstream";
import { source } from "./source";
import { backendUrl } from "./urls";

/**
 * The fleet file: the fleet project's stack config (`nvcf-fleet:<key>`), key for key. Every
 * object is strict, so a misspelt key stops the program with the nearest known one. The Stack
 * fields each setting becomes are in docs/fleets.md, The fleet file.
 */

/**
 * Pulumi's secrets providers besides the service's: the passphrase, and the cloud key managers
 * pulumi/pulumi pkg/secrets/cloud/manager.go opens (awskms, azurekeyvault, gcpkms, hashivault).
 */
const secretsProvider = z.string().superRefine((value, ctx) => {
    if (value === "passphrase" || /^(awskms|azurekeyvault|gcpkms|hashivault):\/\/\S+$/.test(value)) return;
    ctx.addIssue({
        code: "custom",
        message: "must be passphrase or a key manager's URL",
        input: value,
        params: { allowed: "passphrase, awskms://<key>, azurekeyvault://<vault>/keys/<key>, gcpkms://<key>, hashivault://<key>" },
    });
});

/**
 * The root project's secret keys (config/model/keys.ts), each settable from a Secret through
 * `spec.secretsRef`. Not `computePlaneKubeconfigs`: it is a map set key by key with --path,
 * and secretsRef sets whole keys only (UpdateConfig in stack_controller.go sets no Path).
 */
export const STACK_SECRET_KEYS = SECRET_KEYS.filter((k) => k !== "computePlaneKubeconfigs");

const stackSecrets = z.strictObject(Object.fromEntries(STACK_SECRET_KEYS.map((k) => [k, secretRef.optional()])));

const secrets = z
    .strictObject({
        /** PULUMI_CONFIG_PASSPHRASE, when secretsProvider is passphrase. */
        passphrase: secretRef.optional(),
        /** Environment variables of the workspace: the backend's and the key manager's credentials. */
        env: z.record(z.string(), secretRef).default({}),
        /** The root project's secret config keys (ngcApiKey, ...), by key. */
        config: stackSecrets.prefault({}),
    })
    .prefault({});

const requests = z
    .strictObject({
        cpu: g(resourceQuantity).default(DEFAULT_WORKSPACE_REQUESTS.cpu),
        memory: g(resourceQuantity).default(DEFAULT_WORKSPACE_REQUESTS.memory),
        ephemeralStorage: g(resourceQuantity).default(DEFAULT_WORKSPACE_REQUESTS.ephemeralStorage),
    })
    .prefault({});

const prerequisite = z.strictObject({
    /** Another environment of the fleet, whose Stack must have succeeded at its current spec first. */
    environment: z.string(),
    /** `requirement.succeededWithinDuration`: older than this, the operator runs that Stack again first. */
    succeededWithin: g(goDuration).optional(),
});

export const environmentSchema = z
    .strictObject({
        stack: g(stackName),
        namespace: g(dnsLabel).default("nvcf-fleet"),
        /**
         * Off by default: the namespace holds the Secrets the Stack reads, made before it, and
         * the operator's advice is not to bundle a Stack's namespace with the Stack
         * (docs/troubleshooting.md, "Stack Deletion Hangs When the Namespace Is Terminating").
         */
        createNamespace: z.boolean().default(false),
        source,
        backend: backendUrl,
        secretsProvider,
        secrets,
        serviceAccount: z
            .strictObject({
                annotations: stringMap(qualifiedName).default({}),
                /** Also bind cluster-admin: the program installs into the operator's own cluster (docs/fleets.md). */
                clusterAdmin: z.boolean().default(false),
            })
            .prefault({}),
        workspace: z.strictObject({ image: g(imageReference).default(DEFAULT_WORKSPACE_IMAGE), requests }).prefault({}),
        refresh: z.boolean().default(false),
        resyncFrequencySeconds: z
            .number()
            .int()
            .min(MIN_RESYNC_SECONDS, {
                message: `must be at least ${MIN_RESYNC_SECONDS}: the operator reads anything lower as ${MIN_RESYNC_SECONDS}`,
            })
            .optional(),
        retryOnUpdateConflict: z.boolean().default(false),
        destroyOnFinalize: z.boolean().default(false),
        prerequisites: z.array(prerequisite).default([]),
    })
    .superRefine((env, ctx) => {
        const passphrase = env.secretsProvider === "passphrase";
        if (passphrase !== (env.secrets.passphrase !== undefined)) {
            ctx.addIssue({
                code: "custom",
                path: ["secrets", "passphrase"],
                message: passphrase
                    ? "is not set, and secretsProvider passphrase needs it (PULUMI_CONFIG_PASSPHRASE)"
                    : `is read only with secretsProvider passphrase, and this environment's is ${env.secretsProvider}`,
                params: { [CONCEAL]: true, allowed: passphrase ? "{name, key} of the Secret holding the passphrase" : "no passphrase" },
            });
        }
        for (const name of Object.keys(env.secrets.env)) {
            const why =
                envVarName.check(name) ?? (RESERVED_ENV.some((r) => r === name) ? "the operator or secrets.passphrase sets it" : undefined);
            if (why === undefined) continue;
            ctx.addIssue({
                code: "custom",
                path: ["secrets", "env", name],
                message: `the name must be an environment variable the fleet may set: ${why}`,
                input: name,
                params: { allowed: `${envVarName.allowed}; not ${RESERVED_ENV.join(" or ")}` },
            });
        }
    });

export type EnvironmentSettings = z.output<typeof environmentSchema>;

/** The fleet project's keys, each with its schema; a parse gives them in this order. */
export const fleetSchema = z.object({
    cluster: z
        .strictObject({
            /** A kubeconfig context; unset: the current one of $KUBECONFIG or ~/.kube/config. */
            context: g(singleLine).min(1).optional(),
            /** A stable identity, so a change of credentials never replaces every resource (as the root's). */
            clusterIdentifier: g(singleLine).min(1).default("fleet"),
        })
        .prefault({}),
    operator: z
        .strictObject({
            namespace: g(dnsLabel).default(OPERATOR_CHART.namespace),
            createNamespace: z.boolean().default(true),
        })
        .prefault({}),
    environments: z.record(z.string(), environmentSchema),
});

export const FLEET_KEYS = fleetSchema.keyof().options;
export type FleetKey = (typeof FLEET_KEYS)[number];
export type FleetConfig = z.output<typeof fleetSchema>;
