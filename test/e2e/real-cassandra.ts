import { spawn, type ChildProcess } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { stopProcess, stopWithThisProcess } from "./cluster";

/** The JVM flags Cassandra 5.0's own `conf/jvm17-server.options` gives Java 17, and a small heap. */
const JVM = [
    "-Xms512m",
    "-Xmx512m",
    "-XX:+UseG1GC",
    "-Xss512k",
    "-Djdk.attach.allowAttachSelf=true",
    ...[
        "java.base/jdk.internal.misc",
        "java.base/jdk.internal.ref",
        "java.base/sun.nio.ch",
        "java.management.rmi/com.sun.jmx.remote.internal.rmi",
        "java.rmi/sun.rmi.registry",
        "java.rmi/sun.rmi.server",
        "java.sql/java.sql",
    ].flatMap((p) => ["--add-exports", `${p}=ALL-UNNAMED`]),
    ...[
        "java.base/java.lang.module",
        "java.base/jdk.internal.loader",
        "java.base/jdk.internal.ref",
        "java.base/jdk.internal.reflect",
        "java.base/jdk.internal.math",
        "java.base/jdk.internal.module",
        "java.base/jdk.internal.util.jar",
        "jdk.management/com.sun.management.internal",
        "java.base/sun.nio.ch",
        "java.base/java.io",
        "java.base/java.nio",
        "java.base/java.util.concurrent",
        "java.base/java.util",
        "java.base/java.util.concurrent.atomic",
        "java.base/java.lang",
        "java.base/java.math",
        "java.base/java.lang.reflect",
        "java.base/java.net",
    ].flatMap((p) => ["--add-opens", `${p}=ALL-UNNAMED`]),
];

/**
 * A real single-node Cassandra (the version NVIDIA's image is built on), run from its jars with
 * this machine's Java, on loopback, with the chart's authentication: PasswordAuthenticator, so
 * the default superuser `cassandra`/`cassandra` exists until someone changes it. `cqlsh` is the
 * client the chart's hooks and the rotation Job run.
 */
export class CassandraServer {
    private proc?: ChildProcess;

    constructor(
        /** The directory build-tools.sh leaves: `lib/` holds cassandra-all and its dependencies. */
        private readonly home: string,
        readonly cqlshBin: string,
        private readonly dir: string,
        readonly port = 19042,
        private readonly storagePort = 17000,
    ) {}

    async start(): Promise<void> {
        const d = (name: string) => path.join(this.dir, name);
        fs.writeFileSync(
            d("cassandra.yaml"),
            [
                "cluster_name: e2e",
                "num_tokens: 1",
                "partitioner: org.apache.cassandra.dht.Murmur3Partitioner",
                "authenticator: PasswordAuthenticator",
                "authorizer: CassandraAuthorizer",
                "role_manager: CassandraRoleManager",
                `data_file_directories: [${d("data")}]`,
                `commitlog_directory: ${d("commitlog")}`,
                `saved_caches_directory: ${d("saved_caches")}`,
                `hints_directory: ${d("hints")}`,
                `cdc_raw_directory: ${d("cdc")}`,
                "commitlog_sync: periodic",
                "commitlog_sync_period: 10000ms",
                "seed_provider:",
                "  - class_name: org.apache.cassandra.locator.SimpleSeedProvider",
                "    parameters:",
                `      - seeds: "127.0.0.1:${this.storagePort}"`,
                "listen_address: 127.0.0.1",
                "rpc_address: 127.0.0.1",
                `native_transport_port: ${this.port}`,
                `storage_port: ${this.storagePort}`,
                "endpoint_snitch: SimpleSnitch",
                "start_native_transport: true",
                "",
            ].join("\n"),
        );
        fs.writeFileSync(
            d("logback.xml"),
            `<configuration><appender name="OUT" class="ch.qos.logback.core.ConsoleAppender"><encoder><pattern>%d %level %msg%n</pattern></encoder></appender><root level="INFO"><appender-ref ref="OUT"/></root></configuration>\n`,
        );
        const args = [
            ...JVM,
            `-Dcassandra.config=file://${d("cassandra.yaml")}`,
            `-Dlogback.configurationFile=${d("logback.xml")}`,
            `-Dcassandra.storagedir=${this.dir}`,
            "-Dcassandra-foreground=yes",
            `-Dcassandra.jmx.local.port=${this.storagePort + 199}`,
            "-Dcassandra.skip_wait_for_gossip_to_settle=0",
            "-Dcassandra.ring_delay_ms=0",
            "-cp",
            `${path.join(this.home, "lib")}/*`,
            "org.apache.cassandra.service.CassandraDaemon",
        ];
        const out = fs.openSync(d("cassandra.log"), "a");
        this.proc = stopWithThisProcess(spawn("java", args, { stdio: ["ignore", out, out] }));
        fs.closeSync(out);
        // The default superuser is made a few seconds after CQL listens: wait until it logs in.
        const deadline = Date.now() + 180_000;
        for (;;) {
            if ((await this.cql("cassandra", "cassandra", "SELECT key FROM system.local;")).code === 0) return;
            if (Date.now() > deadline || this.proc.exitCode !== null) {
                throw new Error(`Cassandra did not start; its log ends:\n${fs.readFileSync(d("cassandra.log"), "utf8").slice(-2000)}`);
            }
            await new Promise((r) => setTimeout(r, 2000));
        }
    }

    async stop(): Promise<void> {
        await stopProcess(this.proc);
    }

    /** One cqlsh run as `user`, the statement on stdin (as the rotation Job sends it). */
    cql(user: string, password: string, statement: string): Promise<{ code: number; out: string }> {
        return new Promise((resolve) => {
            const p = spawn(this.cqlshBin, ["-u", user, "-p", password, "127.0.0.1", String(this.port)], {
                env: { ...process.env, CQLSH_NO_BUNDLED: "TRUE" },
            });
            let out = "";
            p.stdout.on("data", (c: Buffer) => (out += c.toString()));
            p.stderr.on("data", (c: Buffer) => (out += c.toString()));
            p.on("close", (code) => resolve({ code: code ?? 1, out }));
            p.stdin.end(statement);
        });
    }
}
