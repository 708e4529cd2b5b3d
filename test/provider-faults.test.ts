import assert from "node:assert/strict";
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, beforeEach, describe, test } from "node:test";
import { ClusterRegistrationProvider } from "../components/providers/cluster-registration";
import { GrantRevocationInputs, GrantRevocationProvider } from "../components/providers/openbao-grant-revocation";
import { httpRequest, retryAfterMs } from "../lib/http/client";
import { apiServer, noDefaultKubeconfig } from "../lib/cluster-access/access";

// The dynamic providers fail closed: injected faults of a scripted server, each ending in a
// message that names the endpoint, what it answered and what to do, and never a secret.

type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void;

/** A server whose answers each test scripts; it records what it was asked. */
class Scripted {
    handler: Handler = (_req, res) => res.writeHead(500).end();
    readonly seen: string[] = [];
    private server?: http.Server;
    get url(): string {
        return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`;
    }
    async start(): Promise<void> {
        this.server = http.createServer((req, res) => {
            this.seen.push(`${req.method} ${req.url}`);
            req.resume();
            req.on("end", () => this.handler(req, res));
        });
        await new Promise<void>((r) => this.server!.listen(0, "127.0.0.1", () => r()));
    }
    async stop(): Promise<void> {
        this.server?.closeAllConnections();
        await new Promise((r) => this.server?.close(r));
    }
}

const server = new Scripted();
before(() => server.start());
after(() => server.stop());
beforeEach(() => {
    server.seen.length = 0;
});

const json = (res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) =>
    res.writeHead(status, { "Content-Type": "application/json", ...headers }).end(JSON.stringify(body));

describe("the HTTP client", () => {
    // The two tests that must wait about a second each wait together, each on a server of its own.
    describe("what takes a second", { concurrency: true }, () => {
        const own = [new Scripted(), new Scripted()];
        const [trickling, limiting] = own;
        before(() => Promise.all(own.map((s) => s.start())));
        after(() => Promise.all(own.map((s) => s.stop())));

        test("a server that trickles bytes is cut off at the request's overall deadline, not waited on forever", async () => {
            const timers: NodeJS.Timeout[] = [];
            trickling.handler = (_req, res) => {
                res.writeHead(200, { "Content-Type": "application/json" });
                // A byte every 100 ms: never idle for the 1 s idle timeout.
                const t = setInterval(() => res.write(" "), 100);
                timers.push(t);
                res.on("close", () => clearInterval(t));
            };
            const started = Date.now();
            await assert.rejects(
                httpRequest({ method: "GET", url: `${trickling.url}/slow`, timeoutMs: 1000, retries: 0 }),
                /GET http:\/\/127\.0\.0\.1:\d+\/slow: the answer did not complete within 1000 ms/,
            );
            const took = Date.now() - started;
            for (const t of timers) clearInterval(t);
            assert.ok(took < 3000, `gave up after ${took} ms`);
        });

        test("429 with Retry-After is retried after the pause the server asked for", async () => {
            let calls = 0;
            limiting.handler = (_req, res) =>
                ++calls === 1 ? json(res, 429, { error: "slow down" }, { "Retry-After": "1" }) : json(res, 200, { ok: true });
            const started = Date.now();
            const res = await httpRequest({ method: "GET", url: `${limiting.url}/limited`, timeoutMs: 2000, retries: 2, retryDelayMs: 5 });
            assert.equal(res.status, 200);
            assert.equal(calls, 2);
            assert.ok(Date.now() - started >= 900, "waited for the Retry-After");
        });
    });

    test("a Retry-After beyond the bound fails at once, saying so", async () => {
        server.handler = (_req, res) => json(res, 429, { error: "slow down" }, { "Retry-After": "3600" });
        await assert.rejects(
            httpRequest({
                method: "GET",
                url: `${server.url}/limited`,
                timeoutMs: 2000,
                retries: 3,
                retryDelayMs: 5,
                maxRetryAfterMs: 10_000,
            }),
            /GET http:\/\/127\.0\.0\.1:\d+\/limited: HTTP 429, retry after 3600 s, longer than the 10 s this program waits; run again later/,
        );
        assert.equal(server.seen.length, 1);
    });

    test("Retry-After as seconds or an HTTP date", () => {
        const res = (v?: string) => ({ status: 429, headers: v === undefined ? {} : { "retry-after": v }, body: "" });
        assert.equal(retryAfterMs(res("7")), 7000);
        assert.equal(retryAfterMs(res(new Date(10_000).toUTCString()), 4000), 6000);
        assert.equal(retryAfterMs(res()), undefined);
        assert.equal(retryAfterMs(res("soon")), undefined);
    });

    test("a header with CR/LF is refused before anything is sent, without its value", async () => {
        await assert.rejects(
            httpRequest({ method: "GET", url: `${server.url}/x`, hostHeader: "sis.nvcf.test\r\nX-Injected: 1", retries: 0 }),
            (err: Error) => {
                assert.match(err.message, /the Host header has characters HTTP does not allow/);
                assert.doesNotMatch(err.message, /X-Injected/);
                return true;
            },
        );
        await assert.rejects(
            httpRequest({ method: "GET", url: `${server.url}/x`, headers: { Authorization: "Bearer tok\nen-SECRET" }, retries: 0 }),
            (err: Error) => {
                assert.doesNotMatch(err.message, /SECRET/);
                return true;
            },
        );
        assert.equal(server.seen.length, 0);
    });
});

function revocation(over: Partial<GrantRevocationInputs> = {}): GrantRevocationInputs {
    return {
        via: "address",
        address: server.url,
        namespace: "vault-system",
        pod: "openbao-server-0",
        port: 8200,
        scheme: "http",
        tokenSource: "config",
        tokenSecret: { namespace: "vault-system", name: "openbao-server-root-token", key: "root_token" },
        insecureSkipVerify: false,
        timeoutSeconds: 2,
        retries: 0,
        ...over,
    };
}

async function revoker(config: Record<string, string> = { "nvcf-self-managed:openbaoToken": "root-SECRET-token" }) {
    const p = new GrantRevocationProvider({ retryDelayMs: 5 });
    await p.configure({ config: { get: (k: string) => config[k], require: (k: string) => config[k] } });
    return p;
}

describe("the grant revocation fails closed", () => {
    test("a LIST answer that is not {data: {keys}} fails the verification, with what came back", async () => {
        // The grant object is still there, under a shape the verification does not read.
        server.handler = (req, res) =>
            req.method === "DELETE" ? res.writeHead(204).end() : json(res, 200, { data: { names: ["admin-issuer-proxy"] } });
        await assert.rejects((await revoker()).create(revocation()), (err: Error) => {
            assert.match(
                err.message,
                /could not list auth\/jwt\/role: http:\/\/127\.0\.0\.1:\d+ answered 200 without OpenBao's documented \{"data":\{"keys":\[\.\.\.\]\}\}/,
            );
            assert.match(err.message, /"names":\["admin-issuer-proxy"\]/);
            assert.match(err.message, /Check that the address reaches OpenBao itself/);
            assert.doesNotMatch(err.message, /SECRET/);
            return true;
        });
    });

    test("a pod-proxy 503 (the API server cannot reach the pod) is not reported as sealed", async () => {
        server.handler = (_req, res) =>
            json(res, 503, {
                kind: "Status",
                apiVersion: "v1",
                status: "Failure",
                message: "no endpoints available for service",
                code: 503,
            });
        await assert.rejects((await revoker()).create(revocation()), (err: Error) => {
            assert.match(
                err.message,
                /the Kubernetes API server answered 503 for the pod proxy at .* \(no endpoints available for service\), not OpenBao/,
            );
            assert.match(err.message, /check that the OpenBao pod is running and ready/);
            assert.doesNotMatch(err.message, /sealed/);
            return true;
        });
    });

    test("a 503 that is neither sealed nor the API server names the endpoint", async () => {
        server.handler = (_req, res) => res.writeHead(503, { "Content-Type": "text/plain" }).end("upstream connect error");
        await assert.rejects(
            (await revoker()).create(revocation()),
            /answered 503 \(upstream connect error\): OpenBao or the way to it is unavailable/,
        );
    });

    test("a kubeconfig secret with a YAML syntax error: the key and line/column, never its text", async () => {
        const kubeconfig = "apiVersion: v1\nusers:\n- name: a\n  user:\n    token: kube-SECRET-token\n   bad: [x\n";
        const p = await revoker({ "nvcf-self-managed:kubeconfig": kubeconfig });
        await assert.rejects(p.create(revocation({ via: "kubernetes", tokenSource: "kubernetes-secret" })), (err: Error) => {
            assert.match(
                err.message,
                /the secret nvcf-self-managed:kubeconfig is not valid YAML \(line 6, column 4: bad indentation of a mapping entry\)/,
            );
            assert.doesNotMatch(err.message, /SECRET|token:|bad: \[x/);
            return true;
        });
        await assert.rejects(apiServer({ kubeconfig: "a: !<tag:SECRET> x\n" }), (err: Error) => {
            assert.match(err.message, /the kubeconfig is not valid YAML \(line \d+, column \d+\)/);
            assert.doesNotMatch(err.message, /SECRET/);
            return true;
        });
    });
});

describe("the cluster registration fails closed", () => {
    async function registrar(config: Record<string, string>) {
        const p = new ClusterRegistrationProvider({ retryDelayMs: 5 });
        await p.configure({ config: { get: (k: string) => config[k], require: (k: string) => config[k] } });
        return p;
    }
    const inputs = {
        clusterName: "gpu-a",
        ncaId: "nca-1",
        region: "us-west-1",
        cloudProvider: "ON-PREM",
        kubeconfigSource: "oidc-issuer" as const,
        timeoutSeconds: 2,
        retries: 0,
    };

    test("an admin-token answer that is not the documented JSON is never used as a bearer token", async () => {
        for (const [type, body] of [
            ["text/html", "<html>login SECRET-page</html>"],
            ["application/json", JSON.stringify({ token: "SECRET-jwt" })],
            ["application/json", JSON.stringify("SECRET-jwt")],
        ] as const) {
            server.seen.length = 0;
            server.handler = (req, res) => {
                if (req.url === "/v1/admin/keys") return res.writeHead(200, { "Content-Type": type }).end(body);
                if (req.url?.startsWith("/issuer")) {
                    if (req.url.endsWith("openid-configuration"))
                        return json(res, 200, { issuer: `${server.url}/issuer`, jwks_uri: `${server.url}/issuer/keys` });
                    return json(res, 200, { keys: [] });
                }
                return json(res, 500, {});
            };
            const p = await registrar({});
            await assert.rejects(
                p.create({ ...inputs, icmsUrl: server.url, apiKeysUrl: server.url, oidcIssuerUrl: `${server.url}/issuer` }),
                (err: Error) => {
                    assert.match(
                        err.message,
                        /cluster registration of gpu-a \(register\) failed: POST http:\/\/127\.0\.0\.1:\d+\/v1\/admin\/keys \(admin token\) answered HTTP 200 with /,
                    );
                    assert.match(
                        err.message,
                        /not the documented \{"id", "value", \.\.\.\}: check that registration\.apiKeysURL and apiKeysHostHeader reach the admin issuer proxy/,
                    );
                    assert.doesNotMatch(err.message, /SECRET/);
                    return true;
                },
            );
            assert.ok(!server.seen.some((s) => s.includes("/v1/accounts")), "nothing is sent to ICMS");
        }
    });

    test("a computePlaneKubeconfigs secret that is not JSON: the key, never the text", async () => {
        await assert.rejects(registrar({ "nvcf-self-managed:computePlaneKubeconfigs": '{"gpu-a": "token: SECRET' }), (err: Error) => {
            assert.match(err.message, /the secret nvcf-self-managed:computePlaneKubeconfigs is not a JSON object/);
            assert.doesNotMatch(err.message, /SECRET/);
            return true;
        });
    });

    test("an ICMS cluster list of another shape fails with what came back", async () => {
        server.handler = (req, res) => {
            if (req.url?.startsWith("/issuer")) {
                if (req.url.endsWith("openid-configuration"))
                    return json(res, 200, { issuer: `${server.url}/issuer`, jwks_uri: `${server.url}/issuer/keys` });
                return json(res, 200, { keys: [] });
            }
            if (req.method === "POST") return json(res, 400, { error: "cluster already exists" });
            return json(res, 200, { clusters: [] });
        };
        const p = await registrar({ "nvcf-self-managed:nvcfAdminToken": "admin-SECRET" });
        await assert.rejects(
            p.create({ ...inputs, icmsUrl: server.url, apiKeysUrl: server.url, oidcIssuerUrl: `${server.url}/issuer` }),
            (err: Error) => {
                assert.match(
                    err.message,
                    /GET http:\/\/127\.0\.0\.1:\d+\/v1\/accounts\/nca-1\/clusters: expected ICMS's list of clusters .* got \{"clusters":\[\]\}; check that registration\.icmsURL/,
                );
                assert.doesNotMatch(err.message, /SECRET/);
                return true;
            },
        );
    });
});

describe("a cluster reached with the default kubeconfig, when there is none", () => {
    const exists = (files: string[]) => (f: string) => files.includes(f);
    test("KUBECONFIG unset and no ~/.kube/config: says so, with the ways to give one", () => {
        assert.equal(
            noDefaultKubeconfig({}, "/home/u", exists([])),
            "no kubeconfig: KUBECONFIG is not set and /home/u/.kube/config does not exist; give one with --kubeconfig <file>, set KUBECONFIG, or create /home/u/.kube/config",
        );
        assert.equal(noDefaultKubeconfig({}, "/home/u", exists(["/home/u/.kube/config"])), undefined);
    });
    test("KUBECONFIG naming only missing files: names them; one present is enough; in a pod, the service account", () => {
        assert.match(
            noDefaultKubeconfig({ KUBECONFIG: "/a:/b" }, "/home/u", exists([]))!,
            /KUBECONFIG names \/a, \/b, and no such file exists/,
        );
        assert.equal(noDefaultKubeconfig({ KUBECONFIG: "/a:/b" }, "/home/u", exists(["/b"])), undefined);
        assert.equal(noDefaultKubeconfig({ KUBERNETES_SERVICE_HOST: "10.0.0.1" }, "/home/u", exists([])), undefined);
    });
    test("apiServer refuses before the client falls back to http://localhost:8080", async () => {
        const saved = { KUBECONFIG: process.env.KUBECONFIG, KUBERNETES_SERVICE_HOST: process.env.KUBERNETES_SERVICE_HOST };
        process.env.KUBECONFIG = "/nonexistent/kubeconfig";
        delete process.env.KUBERNETES_SERVICE_HOST;
        try {
            await assert.rejects(apiServer({}), /^Error: no kubeconfig: KUBECONFIG names \/nonexistent\/kubeconfig/);
        } finally {
            for (const [k, v] of Object.entries(saved))
                if (v === undefined) delete process.env[k];
                else process.env[k] = v;
        }
    });
});
