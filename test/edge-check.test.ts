/**
 * The admin route checked at the edge, NVIDIA's way (`curl --resolve api-keys.<domain>:443:<lb>`):
 * against a real TLS server on 127.0.0.1 standing in for the load balancer (it answers only a
 * status, as a Gateway with or without a route does), with test certificates
 * (test/fixtures/edge-tls), the Gateway's address from a fake API server. 404 passes, another
 * answer fails, a request that never reached the Gateway is inconclusive, never a pass; the
 * health gate and `status` do not fail on inconclusive.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as https from "node:https";
import type { AddressInfo } from "node:net";
import * as path from "node:path";
import type { TLSSocket } from "node:tls";
import { after, before, describe, it } from "node:test";
import { ADMIN_ROUTE } from "../lib/contracts/gateway-api";
import { failed, health } from "../lib/health/checks";
import { adminRouteAtEdge, type EdgeRouteProbe } from "../lib/health/edge-check";
import type { Kube } from "../lib/kubernetes/client";
import { controlPlaneHealth } from "../components/plane/health-specs";
import { ClusterChecksProvider } from "../components/providers/cluster-checks";
import { formatTable } from "../scripts/status/format";
import { exitCode } from "../scripts/status/run";
import { FakeKubeApi, inProcessKube } from "./support/fake-kube-api";
import { devRaw, parse } from "./support/raw-config";

const TLS = path.join(__dirname, "fixtures", "edge-tls");
const read = (f: string) => fs.readFileSync(path.join(TLS, f), "utf8");
const HOST = "api-keys.edge.test";
const GATEWAY = "/apis/gateway.networking.k8s.io/v1/namespaces/envoy-gateway/gateways/shared-gw";

/** The load balancer: presents `cert` and answers `status` to everything, recording what it was asked. */
class Edge {
    status = 404;
    readonly seen: { sni: string | false | null; host: string | undefined; path: string | undefined }[] = [];
    private server?: https.Server;
    constructor(private readonly cert: string) {}
    get port(): number {
        return (this.server!.address() as AddressInfo).port;
    }
    async start(): Promise<void> {
        this.server = https.createServer({ cert: read(`${this.cert}.pem`), key: read(`${this.cert}.key`) }, (req, res) => {
            this.seen.push({ sni: (req.socket as TLSSocket).servername, host: req.headers.host, path: req.url });
            res.writeHead(this.status).end();
        });
        await new Promise<void>((r) => this.server!.listen(0, "127.0.0.1", r));
    }
    async stop(): Promise<void> {
        this.server?.closeAllConnections();
        await new Promise((r) => this.server?.close(r));
    }
}

/** A cluster whose shared Gateway was given `address` in its status.addresses by its load balancer controller (none: no status yet). */
function cluster(address?: string): Kube {
    const fake = new FakeKubeApi();
    fake.put(GATEWAY, {
        metadata: { name: "shared-gw", namespace: "envoy-gateway" },
        status: address ? { addresses: [{ type: "IPAddress", value: address }] } : {},
    });
    return inProcessKube(fake);
}

describe("the admin route at the edge", () => {
    const edge = new Edge(HOST);
    const wrongCert = new Edge("other.edge.test");
    before(async () => {
        await edge.start();
        await wrongCert.start();
    });
    after(async () => {
        await edge.stop();
        await wrongCert.stop();
    });
    const probe = (e: Edge, more: Partial<EdgeRouteProbe> = {}): EdgeRouteProbe => ({
        host: HOST,
        path: ADMIN_ROUTE.path,
        port: e.port,
        gateway: { namespace: "envoy-gateway", name: "shared-gw" },
        ca: read("ca.pem"),
        timeoutSeconds: 5,
        ...more,
    });

    it("404 from the Gateway's load balancer passes: dialled at its address, with the route's hostname as TLS server name and Host", async () => {
        edge.status = 404;
        edge.seen.length = 0;
        const r = await adminRouteAtEdge(cluster("127.0.0.1"), probe(edge));
        assert.equal(r.ok, true, r.detail);
        assert.match(
            r.detail,
            new RegExp(`https://${HOST}:${edge.port}/v1/admin/keys answers 404 at the edge \\(127\\.0\\.0\\.1\\): no route serves it`),
        );
        assert.deepEqual(edge.seen, [{ sni: HOST, host: `${HOST}:${edge.port}`, path: "/v1/admin/keys" }]);
    });

    it("any other answer fails: the route is still served", async () => {
        for (const status of [200, 401, 403]) {
            edge.status = status;
            const r = await adminRouteAtEdge(cluster("127.0.0.1"), probe(edge));
            assert.equal(r.ok, false);
            assert.notEqual(r.inconclusive, true);
            assert.match(r.detail, new RegExp(`answers ${status} at the edge .*the admin route is still served`));
            assert.match(r.fix, /kubectl get httproute -A \| grep admin-token-issuer-proxy/);
        }
        edge.status = 404;
    });

    it("a certificate that does not cover the hostname is inconclusive, unless the route answers past it", async () => {
        wrongCert.status = 404;
        const r = await adminRouteAtEdge(cluster("127.0.0.1"), probe(wrongCert));
        assert.equal(r.ok, false);
        assert.equal(r.inconclusive, true);
        assert.match(
            r.detail,
            /certificate for api-keys\.edge\.test was refused \(ERR_TLS_CERT_ALTNAME_INVALID\); read past it, the route answers 404: .*not a pass/,
        );
        assert.match(r.fix, /curl -sk -o \/dev\/null .*--resolve api-keys\.edge\.test:\d+:127\.0\.0\.1/);
        wrongCert.status = 200;
        const served = await adminRouteAtEdge(cluster("127.0.0.1"), probe(wrongCert));
        assert.equal(served.ok, false);
        assert.notEqual(served.inconclusive, true, "a route answering past the certificate is served");
        assert.match(served.detail, /answers 200 at the edge \(127\.0\.0\.1\) with certificate checks off/);
    });

    it("an edge that cannot be reached, or a Gateway without an address, is inconclusive, with the runbook's curl", async () => {
        const closed = await adminRouteAtEdge(cluster("127.0.0.1"), probe(edge, { port: 1 }));
        assert.equal(closed.inconclusive, true);
        assert.match(
            closed.detail,
            /could not be reached \(.*ECONNREFUSED.*\): the request never reached the Gateway, so this is not a pass/,
        );
        const none = await adminRouteAtEdge(cluster(), probe(edge));
        assert.equal(none.inconclusive, true);
        assert.match(none.detail, /Gateway envoy-gateway\/shared-gw reports no load balancer address/);
        assert.match(none.fix, /checks\.healthGate\.edgeAddress/);
        const set = await adminRouteAtEdge(cluster(), probe(edge, { address: "127.0.0.1" }));
        assert.equal(set.ok, true, "edgeAddress is dialled when the Gateway has none");
    });

    it("inconclusive holds neither the health gate nor status; a failure does", async () => {
        const unreachable = { adminRouteAtEdge: probe(edge, { port: 1 }) };
        const fake = new FakeKubeApi();
        fake.put(GATEWAY, { metadata: { name: "shared-gw" }, status: { addresses: [{ type: "IPAddress", value: "127.0.0.1" }] } });
        const kube = inProcessKube(fake);
        const results = await health(kube, unreachable);
        const edgeResult = results.find((r) => r.name === "admin-route-at-edge")!;
        assert.equal(edgeResult.inconclusive, true);
        assert.equal(results.some(failed), false);

        const gate = new ClusterChecksProvider({ kube });
        const created = await gate.create({
            kind: "health",
            cluster: "control plane",
            reach: { kubeconfigSource: "control-plane" },
            health: unreachable,
            timeoutSeconds: 5,
            pollSeconds: 1,
        });
        assert.equal(created.outs!.results.find((r) => r.name === "admin-route-at-edge")?.inconclusive, true, "recorded as inconclusive");

        const report = { stack: "dev", time: "t", clusters: [{ cluster: "control plane", state: "checked" as const, checks: results }] };
        assert.equal(exitCode(report), 0);
        const table = formatTable(report);
        assert.match(table, /admin-route-at-edge\s+INCONCLUSIVE\s+https:\/\/api-keys\.edge\.test/);
        assert.match(table, /fix: check it from a machine that reaches the load balancer: curl/);
        assert.match(table, /checks: \d+ ok, 0 failed, 1 inconclusive \(exit 0\)/);

        edge.status = 200;
        try {
            assert.equal((await health(kube, { adminRouteAtEdge: probe(edge) })).some(failed), true);
            await assert.rejects(
                gate.create({
                    kind: "health",
                    cluster: "control plane",
                    reach: { kubeconfigSource: "control-plane" },
                    health: { adminRouteAtEdge: probe(edge) },
                    timeoutSeconds: 1,
                    pollSeconds: 1,
                }),
                /the health gate of the control plane still fails after 1 s:\ncontrol plane: admin-route-at-edge: .*answers 200 at the edge/,
            );
        } finally {
            edge.status = 404;
        }
    });

    it("the health gate checks it only when the proxy or its route is off, on the shared Gateway, with the settings' address and CA", () => {
        const spec = (controlPlane: Record<string, unknown>, healthGate: Record<string, unknown> = {}) => {
            const s = parse(devRaw({ controlPlane, values: { checks: { healthGate } } }));
            return controlPlaneHealth(s.controlPlane, s.checks, [], undefined);
        };
        assert.equal(spec({})?.adminRouteAtEdge, undefined, "the proxy and its route are on by default");
        const off = spec({ adminIssuerProxy: { enabled: false } })!.adminRouteAtEdge!;
        assert.equal(off.path, "/v1/admin/keys");
        assert.equal(off.port, 443);
        assert.match(off.host, /^api-keys\./);
        assert.equal(off.address, undefined);
        const routeOff = spec(
            { adminIssuerProxy: { gateway: { enabled: false } } },
            { edgeAddress: "203.0.113.7", edgeCaCert: "-----BEGIN CERTIFICATE-----" },
        )!.adminRouteAtEdge!;
        assert.equal(routeOff.address, "203.0.113.7");
        assert.equal(routeOff.ca, "-----BEGIN CERTIFICATE-----");
        assert.equal(spec({ adminIssuerProxy: { enabled: false } }, { adminRouteAtEdge: false })?.adminRouteAtEdge, undefined);
    });
});
