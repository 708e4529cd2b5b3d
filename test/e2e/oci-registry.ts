import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import * as fs from "node:fs";
import * as net from "node:net";
import * as path from "node:path";
import { freePorts, stopProcess, stopWithThisProcess, until } from "./cluster";

/**
 * The CNCF distribution registry (scripts/parity/build-tools.sh) on 127.0.0.1 over TLS, with a
 * CA of its own and no auth: an OCI chart repository every Helm of this machine can pull from
 * when `SSL_CERT_FILE` names `caFile` (Helm has no plain-HTTP default, even for localhost).
 */
export class OciRegistry {
    readonly caFile: string;
    host = "";
    private proc?: ChildProcess;

    constructor(
        private readonly bin: string,
        private readonly dir: string,
    ) {
        this.caFile = path.join(dir, "ca.crt");
    }

    async start(): Promise<void> {
        const d = this.dir;
        fs.mkdirSync(path.join(d, "data"), { recursive: true });
        const openssl = (args: string[]) => execFileSync("openssl", args, { cwd: d, stdio: ["ignore", "ignore", "pipe"] });
        openssl([
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "2",
            "-subj",
            "/CN=bench-ca",
            "-keyout",
            "ca.key",
            "-out",
            "ca.crt",
        ]);
        openssl(["req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=127.0.0.1", "-keyout", "server.key", "-out", "server.csr"]);
        fs.writeFileSync(path.join(d, "san.ext"), "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n");
        openssl(
            ["x509", "-req", "-in", "server.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial", "-days", "2"].concat([
                "-extfile",
                "san.ext",
                "-out",
                "server.crt",
            ]),
        );
        // The one line its configuration needs; the rest comes from the environment.
        fs.writeFileSync(path.join(d, "config.yml"), "version: 0.1\n");
        const [port] = await freePorts(1);
        this.host = `127.0.0.1:${port}`;
        const log = fs.openSync(path.join(d, "registry.log"), "a");
        this.proc = stopWithThisProcess(
            spawn(this.bin, ["serve", path.join(d, "config.yml")], {
                stdio: ["ignore", log, log],
                env: {
                    ...process.env,
                    REGISTRY_HTTP_ADDR: this.host,
                    REGISTRY_HTTP_TLS_CERTIFICATE: path.join(d, "server.crt"),
                    REGISTRY_HTTP_TLS_KEY: path.join(d, "server.key"),
                    REGISTRY_HTTP_SECRET: "bench",
                    REGISTRY_STORAGE_FILESYSTEM_ROOTDIRECTORY: path.join(d, "data"),
                    REGISTRY_LOG_LEVEL: "warn",
                    REGISTRY_LOG_ACCESSLOG_DISABLED: "true",
                },
            }),
        );
        fs.closeSync(log);
        await until("the OCI registry", () => listening(port), 30_000);
    }

    async stop(): Promise<void> {
        await stopProcess(this.proc);
    }
}

function listening(port: number): Promise<boolean> {
    return new Promise((resolve) => {
        const socket = net.connect(port, "127.0.0.1", () => {
            socket.end();
            resolve(true);
        });
        socket.on("error", () => resolve(false));
    });
}
