import assert from "node:assert/strict";
import * as http from "node:http";
import * as path from "node:path";
import type { AddressInfo } from "node:net";
import { describe, test } from "node:test";
import { ClusterRegistrationProvider } from "../components/providers/cluster-registration";
import { jwksHash } from "../lib/cluster-access/oidc-discovery";
import { devConfig, isSecretAt, ProgramRun, release, releases, runProgram, runProgramExpectingError, withConfig } from "./support/harness";

const EKS_CP = { name: "nvcf-cp", region: "us-west-2", profile: "platform", roleArn: "arn:aws:iam::123456789012:role/nvcf-deployer" };
const ECR = "123456789012.dkr.ecr.us-west-2.amazonaws.com";

function eksStack(extra: Record<string, unknown> = {}, cp: Record<string, unknown> = {}) {
    const { config, secretKeys } = devConfig();
    return {
        config: withConfig(config, {
            "nvcf-self-managed:cluster": { clusterIdentifier: undefined, eks: EKS_CP },
            "nvcf-self-managed:controlPlane": cp,
            ...extra,
        }),
        secretKeys,
    };
}

async function run(extra: Record<string, unknown> = {}, cp: Record<string, unknown> = {}): Promise<ProgramRun> {
    const { config, secretKeys } = eksStack(extra, cp);
    return runProgram(config, secretKeys);
}

const byType = (r: ProgramRun, type: string) => r.resources.filter((x) => x.type === type);

// The tests of a suite start together: their program runs reach the children of
// test/support/program-runs.ts at once, and they read nothing another test changes.
describe("EKS clusters by name", { concurrency: true }, () => {
    test("the control plane's provider: endpoint and CA from the lookup, an aws eks get-token exec credential, a stable identifier", async () => {
        const r = await run();
        const provider = r.resources.find((x) => x.type === "pulumi:providers:kubernetes" && x.name === "control-plane")!;
        assert.equal(provider.inputs.clusterIdentifier, "eks:us-west-2:nvcf-cp");
        const kubeconfig = JSON.parse(String(provider.inputs.kubeconfig));
        assert.equal(kubeconfig.clusters[0].cluster.server, "https://NVCF-CP0123.gr7.us-west-2.eks.amazonaws.com");
        assert.equal(kubeconfig.clusters[0].cluster["certificate-authority-data"], Buffer.from("ca-of-nvcf-cp").toString("base64"));
        assert.deepEqual(kubeconfig.users[0].user.exec, {
            apiVersion: "client.authentication.k8s.io/v1beta1",
            command: "aws",
            args: [
                "--region",
                "us-west-2",
                "eks",
                "get-token",
                "--cluster-name",
                "nvcf-cp",
                "--output",
                "json",
                "--role-arn",
                EKS_CP.roleArn,
            ],
            env: [{ name: "AWS_PROFILE", value: "platform" }],
            interactiveMode: "Never",
        });
        const aws = r.resources.find((x) => x.type === "pulumi:providers:aws")!;
        assert.equal(aws.inputs.region, "us-west-2");
        assert.equal(aws.inputs.profile, "platform");
        // Provider configuration reaches the engine JSON-encoded.
        assert.deepEqual(JSON.parse(String(aws.inputs.assumeRoles)), [{ roleArn: EKS_CP.roleArn }]);
    });

    test("a compute plane on EKS registers with its cluster's OIDC issuer, without API-server discovery", async () => {
        const r = await run({
            "nvcf-self-managed:computePlanes": [{ clusterName: "gpu-eks", cluster: { eks: { name: "gpu-eks", region: "us-west-2" } } }],
        });
        const reg = r.resources.find((x) => x.name === "compute-plane-gpu-eks-registration")!;
        assert.equal(reg.inputs.kubeconfigSource, "oidc-issuer");
        assert.equal(reg.inputs.oidcIssuerUrl, "https://oidc.eks.us-west-2.amazonaws.com/id/GPU-EKS0123");
        const provider = r.resources.find((x) => x.name === "compute-plane-gpu-eks-provider")!;
        assert.equal(provider.inputs.clusterIdentifier, "eks:us-west-2:gpu-eks");
    });

    test("a compute plane on the control plane's EKS cluster uses that cluster's issuer", async () => {
        const r = await run({ "nvcf-self-managed:computePlanes": [{ clusterName: "gpu", cluster: { sameAsControlPlane: true } }] });
        const reg = r.resources.find((x) => x.name === "compute-plane-gpu-registration")!;
        assert.equal(reg.inputs.oidcIssuerUrl, "https://oidc.eks.us-west-2.amazonaws.com/id/NVCF-CP0123");
    });

    test("the grant revocation gets the generated kubeconfig (no secret in it) to reach the cluster", async () => {
        const r = await run({}, { adminIssuerProxy: { enabled: false } });
        const revocation = r.resources.find((x) => x.type === "pulumi-nodejs:dynamic/nvcf:OpenBaoGrantRevocation")!;
        assert.match(String(revocation.inputs.kubeconfig), /eks","get-token/);
    });
});

describe("ECR as the mirror", { concurrency: true }, () => {
    const ecrImages = {
        global: { image: { registry: ECR, repository: "nvcf" }, helm: { sources: { registry: ECR, repository: "nvcf-charts" } } },
    };

    test("no pull secrets (nodes pull with their IAM role), and no NGC key is needed", async () => {
        const r = await run({ "nvcf-self-managed:ngcApiKey": undefined }, ecrImages);
        assert.equal(byType(r, "kubernetes:core/v1:Secret").length, 0);
        assert.equal((release(r, "api").inputs.values as { api: { imagePullSecrets?: unknown } }).api.imagePullSecrets, undefined);
    });

    test("OCI chart pulls log in with an ECR token fetched at each run, kept secret", async () => {
        const r = await run({ "nvcf-self-managed:ngcApiKey": undefined }, ecrImages);
        for (const rel of releases(r)) {
            assert.equal(rel.inputs.chart, `oci://${ECR}/nvcf-charts/${String(rel.inputs.chart).split("/").pop()}`);
            assert.deepEqual(rel.inputs.repositoryOpts, { username: "AWS", password: "ecr-token" });
            assert.ok(isSecretAt(rel.rawInputs, ["repositoryOpts", "password"]), `${rel.inputs.name}: the token is a secret`);
        }
    });
});

describe("Route 53 records for the route hostnames", { concurrency: true }, () => {
    test("with the Gateway installed by the stack: it waits for its address, and is read only after it exists", async () => {
        const route53 = { "nvcf-self-managed:dns": { route53: { zoneId: "Z0123456789ABCDEFGHIJ", region: "us-west-2" } } };
        const install = {
            enabled: true,
            crdsManifest: path.resolve(__dirname, "fixtures", "gateway-api-crds.yaml"),
            envoyGateway: { version: "v1.2.1" },
        };
        const r = await run(route53, { ingress: { gatewayApi: { install } } });
        type Meta = { metadata?: { name?: string; annotations?: Record<string, string> } };
        const meta = (g: { inputs: unknown }) => (g.inputs as Meta).metadata;
        const gateways = byType(r, "kubernetes:gateway.networking.k8s.io/v1:Gateway");
        const read = gateways.find((g) => g.inputs.id !== undefined)!;
        const shared = gateways.find((g) => meta(g)?.name === "nvcf-gateway" && g.inputs.id === undefined)!;
        assert.ok(read && shared, gateways.map((g) => g.name).join(", "));
        assert.equal(read.inputs.id, "envoy-gateway/nvcf-gateway");
        assert.ok(read.dependencies.includes(shared.urn), "the read waits for the Gateway the stack creates");
        assert.deepEqual(meta(shared)?.annotations, { "pulumi.com/waitFor": "jsonpath={.status.addresses[0].value}" });
        // The other Gateways (gRPC, NATS) get no wait: no record points at them.
        for (const other of gateways.filter((g) => g !== read && g !== shared))
            assert.equal(meta(other)?.annotations, undefined, other.name);
        const records = byType(r, "aws:route53/record:Record");
        assert.ok(
            records.length > 0 &&
                records.every((rec) => (rec.inputs.records as string[])[0] === "k8s-gateway-0123456789.elb.us-west-2.amazonaws.com"),
        );
        // Without dns.route53 nothing waits for an address.
        const plain = await run({}, { ingress: { gatewayApi: { install } } });
        for (const g of byType(plain, "kubernetes:gateway.networking.k8s.io/v1:Gateway"))
            assert.equal(meta(g)?.annotations, undefined, g.name);
    });

    test("every hostname, the wildcard and nats., pointing at the Gateway's load-balancer address", async () => {
        const r = await run({ "nvcf-self-managed:dns": { route53: { zoneId: "Z0123456789ABCDEFGHIJ", region: "us-west-2" } } });
        const gateway = r.resources.find((x) => x.type === "kubernetes:gateway.networking.k8s.io/v1:Gateway")!;
        assert.equal(gateway.inputs.id, "envoy-gateway/nvcf-gateway", "the shared Gateway is read");
        assert.match(gateway.provider, /pulumi:providers:kubernetes::control-plane::/);
        const records = byType(r, "aws:route53/record:Record");
        assert.deepEqual(records.map((x) => x.inputs.name).sort(), [
            "*.invocation.nvcf.test",
            "api-keys.nvcf.test",
            "api.nvcf.test",
            "invocation.nvcf.test",
            "llm.nvcf.test",
            "nats.nvcf.test",
            "reval.nvcf.test",
            "sis.nvcf.test",
            "tasks.nvcf.test",
        ]);
        for (const rec of records) {
            assert.equal(rec.inputs.zoneId, "Z0123456789ABCDEFGHIJ");
            assert.equal(rec.inputs.type, "CNAME");
            assert.deepEqual(rec.inputs.records, ["k8s-gateway-0123456789.elb.us-west-2.amazonaws.com"]);
            assert.equal(rec.inputs.ttl, 300);
        }
        assert.equal(r.outputs.gatewayAddress, "k8s-gateway-0123456789.elb.us-west-2.amazonaws.com");
    });

    test("no dns setting, no AWS at all for a non-AWS stack", async () => {
        const { config, secretKeys } = devConfig();
        const r = await runProgram(config, secretKeys);
        assert.equal(r.resources.filter((x) => x.type.startsWith("aws:") || x.type === "pulumi:providers:aws").length, 0);
    });
});

describe("malformed AWS settings are errors before anything is declared", () => {
    const cases: [string, Record<string, unknown>, RegExp][] = [
        [
            "a malformed role ARN",
            { "nvcf-self-managed:cluster": { eks: { ...EKS_CP, roleArn: "arn:aws:iam::123:role/x" } } },
            /cluster\.eks\.roleArn: must be an IAM role ARN/,
        ],
        [
            "a malformed region",
            { "nvcf-self-managed:cluster": { eks: { ...EKS_CP, region: "uswest2" } } },
            /cluster\.eks\.region: must be an AWS region/,
        ],
        [
            "a malformed hosted zone ID",
            { "nvcf-self-managed:dns": { route53: { zoneId: "example.com", region: "us-west-2" } } },
            /dns\.route53\.zoneId: must be a Route 53 hosted zone ID/,
        ],
        [
            "EKS together with a context",
            { "nvcf-self-managed:cluster": { eks: EKS_CP, context: "x" } },
            /cluster\.eks: an EKS cluster is reached through its name alone/,
        ],
    ];
    for (const [what, extra, message] of cases) {
        test(what, async () => {
            const { config, secretKeys } = devConfig();
            const { error, resources } = await runProgramExpectingError(withConfig(config, extra), secretKeys);
            assert.match(error.message, message);
            assert.deepEqual(resources, []);
        });
    }
});

describe("registration from a public issuer (EKS)", () => {
    test("the issuer's discovery document and keys register the cluster; a mismatching issuer is refused", async () => {
        const jwks = JSON.stringify({ keys: [{ kty: "RSA", kid: "eks-1", n: "x", e: "AQAB" }] });
        let issuer = "";
        let claimed = "";
        const server = http.createServer((req, res) => {
            res.setHeader("Content-Type", "application/json");
            if (req.url === "/id/ABC/.well-known/openid-configuration")
                res.end(JSON.stringify({ issuer: claimed, jwks_uri: `${issuer}/keys` }));
            else if (req.url === "/id/ABC/keys") res.end(jwks);
            else if (req.method === "POST" && req.url === "/v1/admin/keys") res.end(JSON.stringify({ value: "t" }));
            else if (req.method === "POST" && req.url === "/v1/accounts/nca/clusters")
                res.end(JSON.stringify({ clusterId: "c1", clusterGroupId: "g1" }));
            else {
                res.statusCode = 404;
                res.end("{}");
            }
        });
        await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
        const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
        issuer = claimed = `${base}/id/ABC`;
        try {
            const p = new ClusterRegistrationProvider({ retryDelayMs: 1 });
            const inputs = {
                clusterName: "gpu-eks",
                ncaId: "nca",
                region: "us-west-2",
                cloudProvider: "AWS",
                icmsUrl: base,
                apiKeysUrl: base,
                kubeconfigSource: "oidc-issuer" as const,
                oidcIssuerUrl: issuer,
                timeoutSeconds: 2,
                retries: 0,
            };
            const { outs } = await p.create(inputs);
            assert.equal(outs!.oidcIssuer, issuer);
            assert.equal(outs!.jwksHash, jwksHash(jwks));
            claimed = "https://somebody-else.example";
            await assert.rejects(p.create(inputs), /gpu-eks \(register\) failed: the issuer .* gave no usable discovery document/);
        } finally {
            server.close();
        }
    });
});
