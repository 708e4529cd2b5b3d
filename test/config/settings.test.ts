import assert from "node:assert/strict";
import { describe, test } from "node:test";
import * as pulumi from "@pulumi/pulumi";
import { RESERVED_PULL_SECRET_NAMES } from "../../config/model/compute-plane-schema";
import { environmentSchema } from "../../config/model/schema";
import { assertProblems, configError, devRaw, parse } from "../support/raw-config";
import { CP, EKS, P, plane } from "./support";

// parseSettings on raw config built in the test: no Pulumi program runs. Each test asserts the
// exact key path and message of every problem, in order, all from one ConfigError. The rules that
// span keys (config/rules/) have their tests in rules/, one file a rule.

describe("parseSettings on a good config", () => {
    test("the dev stack parses into frozen Settings: the keys in order, the secrets as given", () => {
        const raw = devRaw({ computePlaneKubeconfigNames: ["gpu-b"] });
        const settings = parse(raw);
        assert.deepEqual(Object.keys(settings), [
            "controlPlane",
            "releases",
            "cluster",
            "registry",
            "computePlanes",
            "openbaoAccess",
            "openbaoRollout",
            "credentialRotation",
            "dns",
            "checks",
            "bundle",
            "computePlaneKubeconfigNames",
            "secrets",
        ]);
        assert.equal(settings.controlPlane.global.domain, "nvcf.test");
        assert.equal(settings.cluster.clusterIdentifier, "dev");
        assert.deepEqual(settings.releases, {});
        assert.deepEqual(settings.computePlanes, []);
        assert.deepEqual(settings.computePlaneKubeconfigNames, ["gpu-b"]);
        assert.equal(settings.secrets.ngcApiKey, raw.secrets.ngcApiKey);
        assert.ok(pulumi.Output.isInstance(settings.secrets.ngcApiKey));
        assert.ok(Object.isFrozen(settings) && Object.isFrozen(settings.controlPlane.global.image));
    });

    test("the same raw config gives the same settings (parseSettings reads nothing else)", () => {
        const raw = devRaw({ controlPlane: { nats: { workerAuth: "token" } } });
        const { secrets: first, ...a } = parse(raw);
        const { secrets: second, ...b } = parse(raw);
        assert.deepEqual(a, b);
        assert.equal(first.ngcApiKey, second.ngcApiKey);
    });
});

describe("each key by its schema: every problem of the parse at once", () => {
    test("an unknown project setting", () => {
        const allowed = [
            "controlPlane",
            "releases",
            "cluster",
            "registry",
            "computePlanes",
            "openbaoAccess",
            "openbaoRollout",
            "credentialRotation",
            "dns",
            "checks",
            "bundle",
            "ngcApiKey",
            "accountRegistryKey",
            "sidecarRegistryKey",
            "chartRegistryPassword",
            "cassandraPassword",
            "kubeconfig",
            "computePlaneKubeconfigs",
            "nvcfAdminToken",
            "openbaoToken",
        ]
            .map((k) => `${P}:${k}`)
            .join(", ");
        assertProblems(devRaw({ unknownKeys: ["controlPlan", "zzz"] }), [
            { key: `${P}:controlPlan`, message: 'unknown setting (did you mean "controlPlane"?)', allowed },
            { key: `${P}:zzz`, message: "unknown setting (a typo?)", allowed },
        ]);
    });

    test("controlPlane unset", () => {
        assertProblems(devRaw({ values: { controlPlane: undefined } }), [
            { key: CP, message: "is not set, and it is required", allowed: "a value of type object" },
        ]);
    });

    test("an unknown nats.workerAuth, with the bundle's own message", () => {
        assertProblems(devRaw({ controlPlane: { nats: { workerAuth: "jwt" } } }), [
            { key: `${CP}.nats.workerAuth`, message: "nats.workerAuth must be nkey or token", given: "jwt", allowed: "nkey, token" },
        ]);
    });

    test("a pod annotation value that is not a string", () => {
        assertProblems(devRaw({ controlPlane: { api: { podAnnotations: { "example.com/port": 8080 } } } }), [
            {
                key: `${CP}.api.podAnnotations["example.com/port"]`,
                message:
                    "annotation values must be strings (quote numbers and booleans; with `pulumi config set --path`, add `--type string`)",
                given: 8080,
                allowed: 'a string, such as "8080" or "true"',
            },
        ]);
    });

    test("a chart-managed annotation key such as checksum/config", () => {
        assertProblems(devRaw({ controlPlane: { ess: { podAnnotations: { "checksum/config": "x" } } } }), [
            {
                key: `${CP}.ess.podAnnotations["checksum/config"]`,
                message: "the key checksum/config is managed by the chart itself",
                given: "checksum/config",
                allowed: "a key not starting with checksum/ or vault.hashicorp.com/",
            },
        ]);
    });

    test("an annotation key with the reserved nvcf.nvidia.com/nats-worker-auth prefix", () => {
        const key = "nvcf.nvidia.com/nats-worker-auth-mode";
        assertProblems(devRaw({ controlPlane: { natsAuthCalloutService: { podAnnotations: { [key]: "x" } } } }), [
            {
                key: `${CP}.natsAuthCalloutService.podAnnotations["${key}"]`,
                message: "keys starting with nvcf.nvidia.com/nats-worker-auth are reserved for the auth callout's restart",
                given: key,
                allowed: "a key not starting with nvcf.nvidia.com/nats-worker-auth",
            },
        ]);
    });

    test("a domain that is not a DNS name", () => {
        assertProblems(devRaw({ controlPlane: { global: { domain: "NVCF test!" } } }), [
            { key: `${CP}.global.domain`, message: "global.domain must be a DNS name", given: "NVCF test!", allowed: undefined },
        ]);
    });

    test("a storage size that is not a Kubernetes quantity", () => {
        assertProblems(devRaw({ controlPlane: { global: { storageSize: "10 GB" } } }), [
            { key: `${CP}.global.storageSize`, message: "must be a Kubernetes quantity such as 10Gi", given: "10 GB" },
        ]);
    });

    test("an unknown top-level key (a typo Helmfile would ignore)", () => {
        assertProblems(devRaw({ controlPlane: { natz: { workerAuth: "token" } } }), [
            {
                key: `${CP}.natz`,
                message: 'unknown key (did you mean "nats"?)',
                // A value under an unknown key is never echoed: a misspelled secret key would print the secret.
                given: undefined,
                allowed: Object.keys(environmentSchema.shape).join(", "),
            },
        ]);
    });

    test("a typo does not hide the rules that span keys: both come in one pass", () => {
        assertProblems(
            devRaw({
                controlPlane: {
                    global: { domian: "x.test" },
                    nats: { workerAuth: "token", authCallout: { workerTokenAuth: { webhookUrl: "" } } },
                },
            }),
            [
                { key: `${CP}.global.domian`, message: 'unknown key (did you mean "domain"?)', given: undefined },
                { key: `${CP}.nats.authCallout.workerTokenAuth.webhookUrl`, message: "must not be empty when nats.workerAuth is token" },
            ],
        );
    });

    test("an unknown nested key", () => {
        assertProblems(devRaw({ controlPlane: { global: { imagePullSecret: [] } } }), [
            {
                key: `${CP}.global.imagePullSecret`,
                message: 'unknown key (did you mean "imagePullSecrets"?)',
                given: undefined,
                allowed:
                    "domain, helm, imagePullSecrets, image, workerEndpoints, nodeSelectors, tolerations, storageClass, storageSize, observability",
            },
        ]);
    });

    test("an account limit of 0, which the bundle would silently turn into its default", () => {
        assertProblems(devRaw({ controlPlane: { accounts: { limits: { maxFunctions: 0 } } } }), [
            {
                key: `${CP}.accounts.limits.maxFunctions`,
                message: "accounts.limits.maxFunctions must be greater than 0 and less than or equal to 50",
                given: 0,
                allowed: ">= 1",
            },
        ]);
    });

    test("the observability profile, with the bundle's message", () => {
        assertProblems(devRaw({ controlPlane: { observability: { profile: "full" } } }), [
            {
                key: `${CP}.observability.profile`,
                message: "observability.profile must be disabled, control, compute, or all",
                given: "full",
                allowed: "disabled, control, compute, all",
            },
        ]);
    });

    test("a release version that is not a semantic version", () => {
        assertProblems(devRaw({ values: { releases: { api: { version: "latest" } } } }), [
            { key: `${P}:releases.api.version`, message: "version must be a semantic version", given: "latest" },
        ]);
    });

    test("compute-plane names: over 32 characters (ICMS answers 412), not RFC 1123, used twice", () => {
        assertProblems(devRaw({ values: { computePlanes: [plane({ clusterName: "a".repeat(33) })] } }), [
            { key: `${P}:computePlanes[0].clusterName`, message: "ICMS refuses cluster names longer than 32 characters" },
        ]);
        assertProblems(devRaw({ values: { computePlanes: [plane({ clusterName: "GPU_A" })] } }), [
            {
                key: `${P}:computePlanes[0].clusterName`,
                message: "must be an RFC 1123 name: lower-case letters, digits, '-' and '.'",
                given: "GPU_A",
            },
        ]);
        assertProblems(devRaw({ values: { computePlanes: [plane(), plane({ cluster: { context: "x" } })] } }), [
            {
                key: `${P}:computePlanes[1].clusterName`,
                message: "the cluster name is already used by computePlanes[0]",
                given: "gpu",
                allowed: "a name unique among the compute planes",
            },
        ]);
    });

    test("a compute plane's pull secret with a name the NVCA mirror reserves", () => {
        assertProblems(devRaw({ values: { computePlanes: [plane({ imagePullSecrets: [{ name: "ngc-api-key" }] })] } }), [
            {
                key: `${P}:computePlanes[0].imagePullSecrets`,
                message: "the NVCA mirror reserves this pull secret name",
                given: "ngc-api-key",
                allowed: `a name other than ${RESERVED_PULL_SECRET_NAMES.join(", ")}`,
            },
        ]);
    });

    test("a compute plane's unknown key, region and SMB chart source", () => {
        assertProblems(
            devRaw({ values: { computePlanes: [plane({ regoin: "x", region: "us west", smbCsiDriver: { source: "ftp://x" } })] } }),
            [
                { key: `${P}:computePlanes[0].region`, message: "must be a region name such as us-west-1", given: "us west" },
                {
                    key: `${P}:computePlanes[0].smbCsiDriver.source`,
                    message: "must be an https URL, an oci:// reference or a path",
                    given: "ftp://x",
                },
                { key: `${P}:computePlanes[0].regoin`, message: 'unknown key (did you mean "region"?)', given: undefined },
            ],
        );
    });

    test("malformed AWS settings: role ARN, region, EKS cluster name, hosted zone ID", () => {
        assertProblems(
            devRaw({
                values: {
                    cluster: { eks: { ...EKS, name: "-x", region: "uswest2", roleArn: "arn:aws:iam::123:role/x" } },
                    dns: { route53: { zoneId: "example.com", region: "us-west-2" } },
                },
            }),
            [
                { key: `${P}:cluster.eks.name`, message: "must be an EKS cluster name", given: "-x" },
                { key: `${P}:cluster.eks.region`, message: "must be an AWS region such as us-west-2", given: "uswest2" },
                { key: `${P}:cluster.eks.roleArn`, message: "must be an IAM role ARN such as arn:aws:iam::123456789012:role/deployer" },
                {
                    key: `${P}:dns.route53.zoneId`,
                    message: "must be a Route 53 hosted zone ID such as Z0123456789ABCDEFGHIJ",
                    given: "example.com",
                },
            ],
        );
    });

    test("every problem of the parse comes at once: unknown keys, plain-text secrets, then each key in order", () => {
        const error = assertProblems(
            devRaw({
                unknownKeys: ["controlPlan"],
                plaintextSecretKeys: ["openbaoToken"],
                controlPlane: { nats: { workerAuth: "jwt" }, global: { domain: "bad domain" } },
                values: { releases: { api: { version: "latest" } }, computePlanes: [plane({ clusterName: "GPU" })] },
            }),
            [
                { key: `${P}:controlPlan`, message: 'unknown setting (did you mean "controlPlane"?)' },
                {
                    key: `${P}:openbaoToken`,
                    message: "is stored in plain text in the stack file: set it again with `pulumi config set --secret openbaoToken`",
                },
                { key: `${CP}.global.domain`, message: "global.domain must be a DNS name" },
                { key: `${CP}.nats.workerAuth`, message: "nats.workerAuth must be nkey or token" },
                { key: `${P}:releases.api.version`, message: "version must be a semantic version" },
                { key: `${P}:computePlanes[0].clusterName`, message: "must be an RFC 1123 name: lower-case letters, digits, '-' and '.'" },
            ],
        );
        assert.equal(error.message.split("\n").filter((l) => l.startsWith("  - ")).length, 6);
    });

    test("cross-key rules wait until every key parses", () => {
        assertProblems(devRaw({ controlPlane: { nats: { workerAuth: "jwt" }, stateMetrics: { enabled: false } } }), [
            { key: `${CP}.nats.workerAuth`, message: "nats.workerAuth must be nkey or token" },
        ]);
    });

    test("openbaoRollout: on by default, its timeouts bounded", () => {
        assert.deepEqual(parse(devRaw()).openbaoRollout, { enabled: true, memberTimeoutSeconds: 600, pollSeconds: 5 });
        const off = parse(devRaw({ values: { openbaoRollout: { enabled: false } } }));
        assert.equal(off.openbaoRollout.enabled, false);
        assertProblems(devRaw({ values: { openbaoRollout: { memberTimeoutSeconds: 5, pollSeconds: 0 } } }), [
            { key: `${P}:openbaoRollout.memberTimeoutSeconds`, message: "Too small: expected number to be >=10", given: 5 },
            { key: `${P}:openbaoRollout.pollSeconds`, message: "Too small: expected number to be >=1", given: 0 },
        ]);
    });
});

describe("compute-plane add-on settings", () => {
    test("all off by default, with the bundle's topology", () => {
        const [settings] = parse(devRaw({ values: { computePlanes: [plane()] } })).computePlanes;
        assert.deepEqual(
            [
                settings.addons.kaiScheduler.enabled,
                settings.addons.groveOperator.enabled,
                settings.addons.dynamoOperator.enabled,
                settings.addons.topologyAwareScheduling.enabled,
            ],
            [false, false, false, false],
        );
        assert.deepEqual(settings.addons.topologyAwareScheduling.topologies, [
            { name: "nvcf-mnnvl-topology", levels: [{ nodeLabel: "nvidia.com/gpu.clique" }, { nodeLabel: "kubernetes.io/hostname" }] },
        ]);
        assert.deepEqual(settings.addons.groveOperator.network, {});
        assert.deepEqual(
            [settings.kaiSchedulerInstalled, settings.groveOperatorInstalled, settings.dynamoOperatorInstalled],
            [false, false, false],
        );
    });

    test("the add-ons' chart sources and topology labels follow their grammars", () => {
        const addons = {
            kaiScheduler: { enabled: true, repository: "oci://ghcr.io/kai\nscheduler" },
            topologyAwareScheduling: {
                enabled: true,
                chartsPath: " charts",
                topologies: [{ name: "t", levels: [{ nodeLabel: "Bad Label" }] }],
            },
        };
        const error = configError(devRaw({ values: { computePlanes: [plane({ addons })] } }));
        const keys = error.problems.map((p) => p.key);
        assert.deepEqual(keys, [
            `${P}:computePlanes[0].addons.topologyAwareScheduling.topologies[0].levels[0].nodeLabel`,
            `${P}:computePlanes[0].addons.topologyAwareScheduling.chartsPath`,
            `${P}:computePlanes[0].addons.kaiScheduler.repository`,
        ]);
        assert.match(error.problems[0].message, /must be a Kubernetes label or annotation key/);
        assert.match(error.problems[1].message, /must be a path: it starts or ends with white space/);
        assert.match(error.problems[2].message, /must be a path/);
        parse(
            devRaw({
                values: {
                    computePlanes: [plane({ addons: { kaiScheduler: { enabled: true, repository: "oci://mirror.example.com/kai" } } })],
                },
            }),
        );
    });

    test("malformed add-on settings: an unknown add-on, a repository, a quantity, a topology", () => {
        assertProblems(
            devRaw({
                values: {
                    computePlanes: [
                        plane({
                            addons: {
                                kaiScheduler: { repository: "ghcr.io/kai", binder: { resources: { limits: { cpu: "four" } } } },
                                topologyAwareScheduling: { topologies: [{ name: "Mnnvl", levels: [] }] },
                                volcano: { enabled: true },
                            },
                        }),
                    ],
                },
            }),
            [
                {
                    key: `${P}:computePlanes[0].addons.topologyAwareScheduling.topologies[0].name`,
                    message: "must be an RFC 1123 name",
                    given: "Mnnvl",
                },
                {
                    key: `${P}:computePlanes[0].addons.topologyAwareScheduling.topologies[0].levels`,
                    message: "needs at least one level, widest domain first",
                },
                {
                    key: `${P}:computePlanes[0].addons.kaiScheduler.repository`,
                    message: "must be an https URL, an oci:// repository or a path",
                    given: "ghcr.io/kai",
                },
                {
                    key: `${P}:computePlanes[0].addons.kaiScheduler.binder.resources.limits.cpu`,
                    message: "must be a Kubernetes quantity such as 500m or 2Gi",
                    given: "four",
                },
                { key: `${P}:computePlanes[0].addons.volcano`, message: "unknown key (a typo?)" },
            ],
        );
    });
});

describe("free-form chart values: the fields Kubernetes takes only as strings", () => {
    const problemsOf = (values: Record<string, unknown>) =>
        configError(devRaw({ values: { releases: { api: { values } } } })).problems.map((p) => [p.key, p.message, p.given]);
    const QUOTE = "(quote numbers and booleans; with `pulumi config set --path`, add `--type string`)";
    test("an unquoted image tag, annotation or label value, and an environment variable's value (its type only shown)", () => {
        assert.deepEqual(
            problemsOf({
                image: { tag: 1.1 },
                podAnnotations: { "prometheus.io/scrape": true },
                deployment: { labels: { tier: 2 } },
                env: [{ name: "API_TOKEN", value: 12345 }],
            }),
            [
                [`${P}:releases.api.values.image.tag`, `an image tag must be a string ${QUOTE}`, 1.1],
                [`${P}:releases.api.values.podAnnotations["prometheus.io/scrape"]`, `podAnnotations values must be strings ${QUOTE}`, true],
                [`${P}:releases.api.values.deployment.labels.tier`, `labels values must be strings ${QUOTE}`, 2],
                [`${P}:releases.api.values.env[0].value`, `an environment variable's value must be a string ${QUOTE}`, "a number"],
            ],
        );
    });
    test("strings there, and numbers anywhere else, pass", () => {
        parse(
            devRaw({
                values: {
                    releases: {
                        api: {
                            values: {
                                image: { tag: "1.10" },
                                replicaCount: 3,
                                resources: { limits: { cpu: 1 } },
                                env: [{ name: "A", value: "1" }],
                            },
                        },
                    },
                },
            }),
        );
    });
});

describe('a structured key whose value is one string, as `pulumi config set <key> "<yaml>"` stores it', () => {
    test("is refused naming the key and the type, not with the SDK's JSON message", () => {
        const { problems } = configError(devRaw({ values: { checks: "healthGate:\n  timeoutSeconds: 30" } }));
        assert.deepEqual(
            problems.map((p) => [p.key, p.message]),
            [[`${P}:checks`, "Invalid input: expected object, received string"]],
        );
    });
});
