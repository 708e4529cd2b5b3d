import type { Values, ValuesContext } from "./context";
import { defined, image, nonEmpty, pdb, placement, pullSecrets } from "./common";

/** Release `cassandra`, key `cassandra`. */
export function cassandraValues(ctx: ValuesContext): Values {
    const { cp } = ctx;
    const c = cp.cassandra;
    return {
        cassandra: {
            global: {
                ...pullSecrets(ctx),
                security: { allowInsecureImages: true },
                ...(cp.global.storageClass ? { defaultStorageClass: cp.global.storageClass } : {}),
            },
            replicaCount: c.replicaCount,
            resourcesPreset: c.resourcesPreset,
            ...pdb(c),
            ...placement(cp, "cassandra"),
            persistence: { size: cp.global.storageSize },
            migrations: {
                image: {
                    ...image(cp, "nvcf-cassandra-migrations"),
                    ...defined({ tag: c.migrations.image.tag, pullPolicy: c.migrations.image.pullPolicy }),
                },
            },
            initialization: { image: image(cp, "alpine-k8s") },
            image: { ...image(cp, "cassandra"), ...defined({ tag: c.image.tag }) },
            // The service-role password must equal DEFAULT_CASSANDRA_PASSWORD; both are write-once.
            serviceRolePassword: ctx.secrets.cassandraPassword,
        },
    };
}

/** Release `cert-manager`, key `cert-manager`: full-path image repositories: the chart does not join registry and repository. */
export function certManagerValues(ctx: ValuesContext): Values {
    const { registry, repository } = ctx.cp.global.image;
    const full = (component: string) => ({ image: { repository: `${registry}/${repository}/cert-manager-${component}` } });
    return {
        "cert-manager": {
            ...(ctx.imagePullSecrets.length > 0 ? { global: { imagePullSecrets: [...ctx.imagePullSecrets] } } : {}),
            ...full("controller"),
            webhook: full("webhook"),
            cainjector: full("cainjector"),
            acmesolver: full("acmesolver"),
            startupapicheck: full("startupapicheck"),
        },
    };
}

/** Release `openbao-server`, key `openbao`. */
export function openbaoValues(ctx: ValuesContext): Values {
    const { cp } = ctx;
    const o = cp.openbao;
    const { image: migrationImage, ...migrations } = o.migrations;
    const webhook = structuredClone(o.injector.webhook) as { namespaceSelector?: { matchExpressions?: unknown[] } };
    if (cp.addons.nvcfUi.enabled) appendNvcfUiNamespace(webhook);
    return {
        openbao: {
            ...(ctx.imagePullSecrets.length > 0 ? { global: { imagePullSecrets: [...ctx.imagePullSecrets] } } : {}),
            migrations: {
                image: { ...image(cp, "nvcf-openbao-migrations"), ...defined({ tag: migrationImage.tag }) },
                // No value skips migration 10 (admin issuer): with the proxy off, the grant is revoked after each revision instead.
                ...migrations,
                // Helm replaces lists whole, so all three entries are always set together.
                env: [
                    { name: "DEFAULT_CASSANDRA_PASSWORD", value: ctx.secrets.cassandraPassword },
                    { name: "NVCF_API_SIDECARS_IMAGE_PULL_SECRET", value: ctx.secrets.sidecarCredential },
                    // ADMIN_CLIENT_ID must stay ncp, the account bootstrap's adminClientId.
                    { name: "ADMIN_CLIENT_ID", value: "ncp" },
                ],
            },
            injector: {
                image: image(cp, "oss-vault-k8s"),
                agentImage: image(cp, "nvcf-openbao"),
                ...placement(cp, "vault"),
                replicas: o.injector.replicas,
                ...nonEmpty("webhook", webhook),
                podDisruptionBudget: { minAvailable: o.injector.podDisruptionBudget.minAvailable },
            },
            server: {
                image: image(cp, "nvcf-openbao"),
                ...placement(cp, "vault"),
                dataStorage: {
                    ...(cp.global.storageClass ? { storageClass: cp.global.storageClass } : {}),
                    size: cp.global.storageSize,
                },
                ha: { disruptionBudget: defined({ ...o.server.ha.disruptionBudget }) },
                ...nonEmpty("annotations", o.server.annotations),
            },
            // Not jwtPluginLifecycle: no template or migration of the pinned chart reads it (the program checks the JWT mounts itself).
        },
    };
}

/** global.yaml.gotmpl appends nvcf-ui to an `In` selector on metadata.name when the UI is on. */
function appendNvcfUiNamespace(webhook: { namespaceSelector?: { matchExpressions?: unknown[] } }): void {
    for (const expr of webhook.namespaceSelector?.matchExpressions ?? []) {
        const e = expr as { key?: string; operator?: string; values?: string[] };
        if (e.key === "kubernetes.io/metadata.name" && e.operator === "In" && !e.values?.includes("nvcf-ui")) {
            e.values = [...(e.values ?? []), "nvcf-ui"];
        }
    }
}

/** Release `nats`, key `nats`: pull secrets by name only (`pullSecretNames`), the one form this chart reads. */
export function natsValues(ctx: ValuesContext): Values {
    const { cp } = ctx;
    const n = cp.nats;
    const podSpec = placement(cp, "controlplane");
    return {
        nats: {
            ...(ctx.imagePullSecrets.length > 0 ? { global: { image: { pullSecretNames: ctx.imagePullSecrets.map((s) => s.name) } } } : {}),
            container: { image: { ...image(cp, "nats-server"), tag: "2.11.17-alpine3.22" } },
            reloader: { image: { ...image(cp, "nats-server-config-reloader"), tag: "0.23.0" } },
            natsBox: { container: { image: { ...image(cp, "nats-box"), tag: "0.19.7-nonroot" } } },
            nkeyJob: { image: image(cp, "alpine-k8s") },
            ...(Object.keys(podSpec).length > 0 ? { podTemplate: { merge: { spec: podSpec } } } : {}),
            ...(cp.global.storageClass
                ? { config: { jetstream: { fileStore: { pvc: { storageClassName: cp.global.storageClass } } } } }
                : {}),
            ...nonEmpty("podDisruptionBudget", n.podDisruptionBudget),
            ...nonEmpty("podAnnotations", n.podAnnotations),
            // Only in token mode: the charts before 1.1.0 know no switch, and nkey is what they do.
            ...(n.workerAuth === "token"
                ? { workerAuth: "token", authCallout: { workerTokenAuth: { webhookUrl: n.authCallout.workerTokenAuth.webhookUrl } } }
                : {}),
        },
    };
}

/** Release `nvcf-pki` (managed issuer only): 01-dependencies' inline values, no global. */
export function nvcfPkiValues(ctx: ValuesContext): Values {
    const openbao = `http://${ctx.address("openbao-server")}`;
    return {
        clusterIssuer: {
            enabled: true,
            name: ctx.cp.addons.llm.pki.issuerName,
            server: openbao,
            path: "services/all/pki/nvcf-service-issuing/sign/nvcf-service-server",
            auth: {
                mountPath: "/v1/auth/jwt",
                role: "cert-manager",
                serviceAccount: { name: "cert-manager", audience: openbao },
            },
        },
    };
}
