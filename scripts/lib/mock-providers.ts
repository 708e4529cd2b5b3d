/**
 * What the mocked providers answer: the state a created resource reports back and the results
 * of invokes, in the shapes of the providers' schemas, with made-up but plausible values.
 * Everything not listed echoes its inputs.
 */

/** The state of a newly created resource of `type`. */
export function mockState(type: string, inputs: Record<string, unknown>): Record<string, unknown> {
    switch (type) {
        case "kubernetes:helm.sh/v3:Release":
            return {
                ...inputs,
                status: {
                    name: inputs.name,
                    namespace: inputs.namespace,
                    version: inputs.version,
                    chart: inputs.chart,
                    status: "deployed",
                    revision: 1,
                },
            };
        case "random:index/randomPassword:RandomPassword":
            return { ...inputs, result: "generated-cassandra-password" };
        case "kubernetes:gateway.networking.k8s.io/v1:Gateway":
            return {
                ...inputs,
                status: { addresses: [{ type: "Hostname", value: "k8s-gateway-0123456789.elb.us-west-2.amazonaws.com" }] },
            };
        case "pulumi-nodejs:dynamic/nvcf:ClusterRegistration":
            return {
                ...inputs,
                clusterId: `cluster-id-of-${String(inputs.clusterName)}`,
                clusterGroupId: `group-id-of-${String(inputs.clusterName)}`,
                oidcIssuer: "https://kubernetes.default.svc.cluster.local",
                jwksHash: "0".repeat(64),
            };
        case "pulumi-nodejs:dynamic/nvcf:BundleReceiptKey":
            return { ...inputs, key: "ab".repeat(32) };
        default:
            return inputs;
    }
}

/** The result of the invoke `token` (data sources such as aws.eks.getCluster). */
export function mockCall(token: string, inputs: Record<string, unknown>): Record<string, unknown> {
    switch (token) {
        case "aws:eks/getCluster:getCluster": {
            const name = String(inputs.name);
            return {
                name,
                arn: `arn:aws:eks:us-west-2:123456789012:cluster/${name}`,
                endpoint: `https://${name.toUpperCase()}0123.gr7.us-west-2.eks.amazonaws.com`,
                certificateAuthorities: [{ data: Buffer.from(`ca-of-${name}`).toString("base64") }],
                identities: [{ oidcs: [{ issuer: `https://oidc.eks.us-west-2.amazonaws.com/id/${name.toUpperCase()}0123` }] }],
                version: "1.33",
                status: "ACTIVE",
            };
        }
        case "aws:ecr/getAuthorizationToken:getAuthorizationToken":
            return {
                authorizationToken: Buffer.from("AWS:ecr-token").toString("base64"),
                password: "ecr-token",
                userName: "AWS",
                proxyEndpoint: `https://${String(inputs.registryId)}.dkr.ecr.us-west-2.amazonaws.com`,
                expiresAt: "2026-11-30T12:00:00Z",
                id: "us-west-2",
            };
        default:
            return inputs;
    }
}
