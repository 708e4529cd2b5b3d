import * as http from "node:http";

/**
 * The pods' network: on the pods' address and `port`, each request the API server's pod proxy
 * sends (it names the pod in X-Forwarded-Uri) goes on to that pod's process at `target(pod)`, as
 * a kubelet and a CNI would carry it. `seen` hears of each request (pod, method, path).
 */
export async function podNetwork(
    host: string,
    port: number,
    target: (pod: string) => string | undefined,
    seen?: (request: { pod: string; method: string; path: string; url: string }) => void,
): Promise<http.Server> {
    const server = http.createServer((req, res) => {
        const forwarded = String(req.headers["x-forwarded-uri"] ?? "");
        const pod = /\/pods\/(?:https?:)?([a-z0-9-]+)(?::\d+)?\/proxy\//.exec(forwarded)?.[1] ?? "";
        seen?.({ pod, method: req.method ?? "GET", path: (req.url ?? "/").replace(/^\/v1\//, "").split("?")[0], url: req.url ?? "/" });
        const to = target(pod);
        if (!to) {
            req.resume();
            res.writeHead(502).end(`no process for pod ${pod}`);
            return;
        }
        const headers = { ...req.headers };
        delete headers.host;
        const out = http.request(`${to}${req.url}`, { method: req.method, headers }, (answer) => {
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.pipe(res);
        });
        // A stopped member refuses the connection, as a pod that is not running does.
        out.on("error", (err) => res.writeHead(502).end(String(err)));
        req.pipe(out);
    });
    await new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen(port, host, () => resolve());
    });
    return server;
}
