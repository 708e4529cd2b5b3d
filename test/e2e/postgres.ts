import { spawn, type ChildProcess } from "node:child_process";
import * as crypto from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { freePorts, stopWithThisProcess } from "./cluster";
import type { SharedBackend } from "./shared-backend-server";

/**
 * A real PostgreSQL server for Pulumi's DIY PostgreSQL backend (`postgres://`,
 * pulumi/pulumi pkg/backend/diy/postgres): a cluster made with initdb in a temporary
 * directory, on 127.0.0.1 at a free port, no Unix socket, password logins only
 * (scram-sha-256). The backend logs in as its own role, owner of its database, with the password
 * in PGPASSWORD as that README's "Environment Setup" gives it, never in the URL; the passwords
 * stay in this process's memory and the children's environment.
 */

/** The server's programs this file starts; psql is the client the test reads the backend's table with. */
const PROGRAMS = ["initdb", "postgres", "psql"] as const;
type Program = (typeof PROGRAMS)[number];
export type PostgresTools = Record<Program, string>;

/**
 * The PostgreSQL programs: each from $E2E_POSTGRES_BIN, else the newest
 * /usr/lib/postgresql/<version>/bin (Debian's packages), else PATH.
 */
export function findPostgres(): { tools?: PostgresTools; missing: string } {
    const versions = fs.existsSync("/usr/lib/postgresql")
        ? fs
              .readdirSync("/usr/lib/postgresql")
              .filter((v) => /^\d+$/.test(v))
              .sort((a, b) => Number(b) - Number(a))
        : [];
    const dirs = [
        ...(process.env.E2E_POSTGRES_BIN ? [process.env.E2E_POSTGRES_BIN] : []),
        ...versions.map((v) => `/usr/lib/postgresql/${v}/bin`),
        ...(process.env.PATH ?? "").split(path.delimiter).filter(Boolean),
    ];
    const found: Partial<PostgresTools> = {};
    for (const program of PROGRAMS) {
        const hit = dirs.map((d) => path.join(d, program)).find((f) => fs.existsSync(f));
        if (hit) found[program] = hit;
    }
    const missing = PROGRAMS.filter((p) => !found[p]);
    if (missing.length > 0) {
        return {
            missing:
                `missing PostgreSQL's ${missing.join(", ")} (looked in $E2E_POSTGRES_BIN, /usr/lib/postgresql/<version>/bin and PATH; ` +
                "install the PostgreSQL 15 server and client, e.g. apt-get install postgresql-15)",
        };
    }
    return { tools: found as PostgresTools, missing: "" };
}

/** PostgreSQL refuses to run as root: as root, the server runs as the `postgres` user (Debian's package makes it), else `nobody`. */
function serverUser(): { uid: number; gid: number } | undefined {
    if (process.getuid?.() !== 0) return undefined;
    const passwd = fs.readFileSync("/etc/passwd", "utf8").split("\n");
    for (const name of ["postgres", "nobody"]) {
        const fields = passwd.find((l) => l.startsWith(`${name}:`))?.split(":");
        if (fields) return { uid: Number(fields[2]), gid: Number(fields[3]) };
    }
    throw new Error("running as root, and neither a postgres nor a nobody user to run PostgreSQL as");
}

function run(bin: string, args: string[], opts: { env?: NodeJS.ProcessEnv; input?: string; user?: { uid: number; gid: number } }) {
    return new Promise<{ code: number; stdout: string; stderr: string }>((resolve, reject) => {
        const child = spawn(bin, args, { env: opts.env ?? process.env, stdio: ["pipe", "pipe", "pipe"], ...opts.user });
        let stdout = "";
        let stderr = "";
        child.stdout.on("data", (c: Buffer) => (stdout += c.toString("utf8")));
        child.stderr.on("data", (c: Buffer) => (stderr += c.toString("utf8")));
        child.on("error", reject);
        child.on("close", (code) => resolve({ code: code ?? 1, stdout, stderr }));
        child.stdin.end(opts.input ?? "");
    });
}

/** The backend's database: also the first part of every key of the backend's table (the URL's path). */
export const POSTGRES_DATABASE = "nvcf_state";
/** The table Pulumi's postgres backend keeps every blob in (pkg/backend/diy/postgres). */
export const BACKEND_TABLE = "pulumi_state";

export class PostgresServer implements SharedBackend {
    readonly name = "PostgreSQL";
    /** The backend's role and database. */
    readonly user = "pulumi";
    readonly database = POSTGRES_DATABASE;
    port = 0;
    readonly dir: string;
    private proc?: ChildProcess;
    private readonly superPassword = crypto.randomBytes(18).toString("hex");
    private readonly password = crypto.randomBytes(18).toString("hex");
    private readonly runAs = serverUser();

    constructor(private readonly tools: PostgresTools) {
        this.dir = fs.mkdtempSync(path.join(os.tmpdir(), "nvcf-e2e-postgres-"));
        if (this.runAs) fs.chownSync(this.dir, this.runAs.uid, this.runAs.gid);
    }

    /** The backend's URL, as `pulumi login` takes it: no password in it (loopback: no TLS). */
    get url(): string {
        return `postgres://${this.user}@127.0.0.1:${this.port}/${this.database}?sslmode=disable`;
    }

    /** What a client of the backend needs in its environment: the password. */
    get clientEnv(): NodeJS.ProcessEnv {
        return { PGPASSWORD: this.password };
    }

    /**
     * Where the backend keeps a stack's checkpoint: the DIY layout's path under the URL's path,
     * the database's name (every bucket but a file one is a `blob.PrefixedBucket`, pkg/backend/diy/backend.go).
     */
    checkpointKey(project: string, stack: string): string {
        return `${POSTGRES_DATABASE}/.pulumi/stacks/${project}/${stack}.json`;
    }

    /** Every key of the backend's table with its last write: what a command changed. */
    rows(): Promise<string> {
        return this.psql(`SELECT key || ' ' || updated_at FROM ${BACKEND_TABLE} ORDER BY key;`);
    }

    /** The keys of the locks held on a stack, in the backend's table. */
    async lockKeys(project: string, stack: string): Promise<string[]> {
        const prefix = `${POSTGRES_DATABASE}/.pulumi/locks/organization/${project}/${stack}/`;
        const out = await this.psql(`SELECT key FROM ${BACKEND_TABLE} WHERE starts_with(key, '${prefix}') ORDER BY key;`);
        return out.split("\n").filter(Boolean);
    }

    /** One blob of the backend's table (a checkpoint, a lock), as text. */
    async blob(key: string): Promise<string> {
        if (!/^[\w./-]+$/.test(key)) throw new Error(`not a backend key: ${key}`);
        return this.psql(`SELECT convert_from(decode(data->>'data', 'base64'), 'UTF8') FROM ${BACKEND_TABLE} WHERE key = '${key}';`);
    }

    /** True when `text` holds either password (for checks that outputs never show one). */
    leaks(text: string): boolean {
        return text.includes(this.password) || text.includes(this.superPassword);
    }

    async start(): Promise<void> {
        const data = path.join(this.dir, "data");
        const pwfile = path.join(this.dir, "superuser-password");
        fs.writeFileSync(pwfile, `${this.superPassword}\n`, { mode: 0o600 });
        if (this.runAs) fs.chownSync(pwfile, this.runAs.uid, this.runAs.gid);
        const init = await run(
            this.tools.initdb,
            ["-D", data, "-U", "postgres", `--pwfile=${pwfile}`, "--auth=scram-sha-256", "--encoding=UTF8", "--locale=C", "--no-sync"],
            { user: this.runAs, env: { PATH: process.env.PATH, LANG: "C" } },
        );
        fs.rmSync(pwfile, { force: true });
        if (init.code !== 0) throw new Error(`initdb exited ${init.code}:\n${init.stdout}${init.stderr}`);

        [this.port] = await freePorts(1);
        const log = fs.openSync(path.join(this.dir, "postgres.log"), "a");
        if (this.runAs) fs.fchownSync(log, this.runAs.uid, this.runAs.gid);
        const proc = stopWithThisProcess(
            spawn(
                this.tools.postgres,
                [
                    "-D",
                    data,
                    "-c",
                    "listen_addresses=127.0.0.1",
                    "-c",
                    `port=${this.port}`,
                    "-c",
                    "unix_socket_directories=",
                    // A test server: durability is not what is tested.
                    "-c",
                    "fsync=off",
                    "-c",
                    "synchronous_commit=off",
                    "-c",
                    "full_page_writes=off",
                    // No statement in the log, ever: one of them holds the backend role's password.
                    "-c",
                    "log_min_error_statement=panic",
                ],
                { stdio: ["ignore", log, log], env: { PATH: process.env.PATH, LANG: "C" }, ...this.runAs },
            ),
        );
        fs.closeSync(log);
        this.proc = proc;
        const deadline = Date.now() + 60_000;
        for (;;) {
            const probe = await this.psql("SELECT 1", { superuser: true, database: "postgres" }).catch((e: Error) => e);
            if (!(probe instanceof Error)) break;
            if (proc.exitCode !== null || proc.signalCode !== null) throw new Error(`postgres exited:\n${this.log().slice(-3000)}`);
            if (Date.now() > deadline) throw new Error(`postgres not ready after 60 s: ${probe.message}`);
            await new Promise((r) => setTimeout(r, 100));
        }
        // The backend's own role, owner of its database (it creates its table there): no superuser.
        await this.psql(
            `CREATE ROLE ${this.user} LOGIN PASSWORD '${this.password}';\nCREATE DATABASE ${this.database} OWNER ${this.user};`,
            { superuser: true, database: "postgres" },
        );
    }

    /**
     * Runs SQL with psql (on stdin, so nothing of it shows in a process listing), as the backend's
     * role unless `superuser`; the unaligned, tuples-only output, one row a line.
     */
    async psql(sql: string, opts: { superuser?: boolean; database?: string } = {}): Promise<string> {
        const user = opts.superuser ? "postgres" : this.user;
        const res = await run(
            this.tools.psql,
            [
                "-X",
                "-q",
                "-A",
                "-t",
                "-v",
                "ON_ERROR_STOP=1",
                "-h",
                "127.0.0.1",
                "-p",
                String(this.port),
                "-U",
                user,
                "-d",
                opts.database ?? this.database,
                "-f",
                "-",
            ],
            {
                env: {
                    PATH: process.env.PATH,
                    LANG: "C",
                    PGCONNECT_TIMEOUT: "5",
                    PGPASSWORD: opts.superuser ? this.superPassword : this.password,
                },
                input: sql,
            },
        );
        if (res.code !== 0) {
            // psql may quote the statement that failed, and the role's creation holds its password.
            const said = [this.password, this.superPassword].reduce((t, pw) => t.split(pw).join("***"), res.stderr.trim());
            throw new Error(`psql exited ${res.code}: ${said}`);
        }
        return res.stdout;
    }

    log(): string {
        const file = path.join(this.dir, "postgres.log");
        return fs.existsSync(file) ? fs.readFileSync(file, "utf8") : "";
    }

    /** A fast shutdown (SIGINT: clients are disconnected), SIGKILL after 10 s. */
    async stop(): Promise<void> {
        const p = this.proc;
        if (!p || p.exitCode !== null || p.signalCode !== null) return;
        const exited = new Promise((r) => p.once("exit", r));
        p.kill("SIGINT");
        const timer = setTimeout(() => p.kill("SIGKILL"), 10_000);
        await exited;
        clearTimeout(timer);
    }

    removeDir(): void {
        fs.rmSync(this.dir, { recursive: true, force: true });
    }
}

/**
 * The environment of a checkout that uses the backend (CI's, a laptop's), as the README's set-up
 * gives it: the CLI built here and the dynamic-provider host of the project's @pulumi/pulumi on
 * PATH, a PULUMI_HOME of its own under `work`, the passphrase, the backend's credentials (only)
 * in the environment variables its client reads, and the kubeconfig.
 */
export function backendUserEnv(o: {
    readonly work: string;
    readonly repo: string;
    readonly cliBin: string;
    readonly backend: SharedBackend;
    readonly passphrase: string;
    readonly kubeconfig: string;
}): { pluginDir: string; env: (home: string, backendUrl?: string) => NodeJS.ProcessEnv } {
    const pluginDir = path.join(o.work, "bin");
    fs.mkdirSync(pluginDir, { recursive: true });
    fs.symlinkSync(
        path.join(o.repo, "node_modules/@pulumi/pulumi/pulumi-resource-pulumi-nodejs"),
        path.join(pluginDir, "pulumi-resource-pulumi-nodejs"),
    );
    fs.mkdirSync(path.join(o.work, "tmp"), { recursive: true });
    const env = (home: string, backendUrl?: string): NodeJS.ProcessEnv => ({
        ...process.env,
        PATH: [pluginDir, o.cliBin, path.dirname(process.execPath), process.env.PATH].join(path.delimiter),
        PULUMI_HOME: path.join(o.work, home),
        PULUMI_BACKEND_URL: backendUrl,
        PULUMI_CONFIG_PASSPHRASE: o.passphrase,
        PULUMI_SKIP_UPDATE_CHECK: "true",
        PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
        KUBECONFIG: o.kubeconfig,
        TMPDIR: path.join(o.work, "tmp"),
        ...o.backend.clientEnv,
    });
    return { pluginDir, env };
}
