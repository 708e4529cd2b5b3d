import { spawn, type ChildProcess } from "node:child_process";
import * as fs from "node:fs";
import * as crypto from "node:crypto";
import * as net from "node:net";
import * as path from "node:path";
import { ed25519PrivateKey, userNkey } from "../../lib/nats/nkeys";
import { rawSeed } from "../support/nkey-seed";
import { stopProcess, stopWithThisProcess } from "./cluster";

/**
 * A real nats-server with JetStream and its monitoring port, on loopback, with JetStream
 * accounts of its own (users `<account>`/`<account>`), as the bundle's chart runs NATS
 * (JetStream on, monitoring on 8222; its accounts APP and AUTH).
 */
export class NatsServer {
    private proc?: ChildProcess;
    /** More users of the APP account, as nats.conf entries (`{ nkey: "U…" }`): set them, then reload(). */
    appUsers: string[] = [];

    constructor(
        private readonly bin: string,
        private readonly dir: string,
        readonly accounts: readonly string[],
        readonly port: number,
        readonly monitorPort: number,
    ) {}

    private writeConfig(): string {
        const config = path.join(this.dir, "nats.conf");
        const users = (a: string) => [`{ user: "${a}", password: "${a}" }`, ...(a === "APP" ? this.appUsers : [])].join(", ");
        const accounts = this.accounts.map((a) => `  ${a}: { jetstream: enabled, users: [ ${users(a)} ] }`).join("\n");
        fs.writeFileSync(
            config,
            [
                `listen: "127.0.0.1:${this.port}"`,
                `http: "127.0.0.1:${this.monitorPort}"`,
                `jetstream { store_dir: "${path.join(this.dir, "js")}", max_memory_store: 67108864, max_file_store: 67108864 }`,
                `accounts {`,
                accounts,
                `  SYS: { users: [ { user: "sys", password: "sys" } ] }`,
                `}`,
                `system_account: SYS`,
                "",
            ].join("\n"),
        );
        return config;
    }

    /** nats-server reloads its configuration on SIGHUP: new users log in, removed ones are refused from then on. */
    async reload(): Promise<void> {
        this.writeConfig();
        this.proc?.kill("SIGHUP");
        await new Promise((r) => setTimeout(r, 500));
    }

    async start(): Promise<void> {
        const config = this.writeConfig();
        const out = fs.openSync(path.join(this.dir, "nats.log"), "a");
        this.proc = stopWithThisProcess(spawn(this.bin, ["-c", config], { stdio: ["ignore", out, out] }));
        fs.closeSync(out);
        const deadline = Date.now() + 30_000;
        while (!(await this.monitorAnswers())) {
            if (Date.now() > deadline || this.proc.exitCode !== null) {
                throw new Error(
                    `nats-server did not start; its log ends:\n${fs.readFileSync(path.join(this.dir, "nats.log"), "utf8").slice(-1500)}`,
                );
            }
            await new Promise((r) => setTimeout(r, 200));
        }
    }

    async stop(): Promise<void> {
        await stopProcess(this.proc);
    }

    /** A client connection as one account's user. */
    connect(account: string): Promise<NatsClient> {
        return NatsClient.connect(this.port, { user: account, pass: account });
    }

    /** A client connection that logs in with a user NKey's seed (`SU…`), named as a NATS client names itself. */
    connectNkey(seed: string, name: string): Promise<NatsClient> {
        return NatsClient.connect(this.port, { seed }, name);
    }

    private monitorAnswers(): Promise<boolean> {
        return new Promise((resolve) => {
            const s = net.connect(this.monitorPort, "127.0.0.1", () => {
                s.destroy();
                resolve(true);
            });
            s.on("error", () => resolve(false));
        });
    }
}

/**
 * The little of the NATS client protocol the suite needs (CONNECT, PUB, SUB, MSG, PING/PONG):
 * JetStream's API is request and reply on `$JS.API.>` subjects, as NVCF's services use it.
 */
export class NatsClient {
    private buffer = Buffer.alloc(0);
    private waiting: ((payload: string) => void)[] = [];
    private pong?: { resolve: () => void; reject: (err: Error) => void };
    private inbox = 0;
    private info?: (info: { nonce?: string }) => void;

    private constructor(private readonly socket: net.Socket) {
        socket.on("data", (d: Buffer) => {
            this.buffer = Buffer.concat([this.buffer, d]);
            this.parse();
        });
    }

    /** Logs in with a user and password, or with an NKey: its public key and the server's nonce signed with its seed. */
    static async connect(port: number, auth: { user: string; pass: string } | { seed: string }, name?: string): Promise<NatsClient> {
        const socket = net.connect(port, "127.0.0.1");
        await new Promise<void>((resolve, reject) => {
            socket.once("connect", () => resolve());
            socket.once("error", reject);
        });
        const client = new NatsClient(socket);
        const info = await new Promise<{ nonce?: string }>((resolve) => (client.info = resolve));
        let credentials: object = auth;
        if ("seed" in auth) {
            const raw = rawSeed(auth.seed);
            const sig = crypto.sign(null, Buffer.from(info.nonce ?? ""), ed25519PrivateKey(raw)).toString("base64url");
            credentials = { nkey: userNkey(raw).publicKey, sig };
        }
        socket.write(
            `CONNECT ${JSON.stringify({ verbose: false, pedantic: false, headers: false, ...(name ? { name } : {}), ...credentials })}\r\n`,
        );
        await client.ping();
        return client;
    }

    /** Resolves on PONG; rejects on the server's -ERR (e.g. 'Authorization Violation'). */
    ping(): Promise<void> {
        return new Promise((resolve, reject) => {
            this.pong = { resolve, reject };
            this.socket.write("PING\r\n");
        });
    }

    /** Publishes and waits for the one reply (JetStream API calls answer JSON). */
    async request(subject: string, payload: unknown): Promise<any> {
        const inbox = `_INBOX.e2e.${++this.inbox}`;
        const data = payload === undefined ? "" : JSON.stringify(payload);
        const reply = new Promise<string>((resolve) => this.waiting.push(resolve));
        this.socket.write(`SUB ${inbox} ${this.inbox}\r\nUNSUB ${this.inbox} 1\r\n`);
        this.socket.write(`PUB ${subject} ${inbox} ${Buffer.byteLength(data)}\r\n${data}\r\n`);
        const answer = JSON.parse(await reply);
        if (answer.error) throw new Error(`${subject}: ${JSON.stringify(answer.error)}`);
        return answer;
    }

    /** A stream of one replica on `subjects`, as NVCF's services create theirs (`$JS.API.STREAM.CREATE`). */
    createStream(name: string, subjects: string, storage: string): Promise<unknown> {
        return this.request(`$JS.API.STREAM.CREATE.${name}`, { name, subjects: [subjects], storage, num_replicas: 1 });
    }

    /** Publishes `count` messages and waits until the server has taken them all. */
    async publish(subject: string, count: number): Promise<void> {
        for (let i = 0; i < count; i++) this.socket.write(`PUB ${subject} 2\r\nm${i % 10}\r\n`);
        await this.ping();
    }

    close(): void {
        this.socket.end();
    }

    private parse(): void {
        for (;;) {
            const eol = this.buffer.indexOf("\r\n");
            if (eol < 0) return;
            const line = this.buffer.subarray(0, eol).toString("utf8");
            if (line.startsWith("MSG ")) {
                const size = Number(line.split(" ").pop());
                if (this.buffer.length < eol + 2 + size + 2) return;
                const payload = this.buffer.subarray(eol + 2, eol + 2 + size).toString("utf8");
                this.buffer = this.buffer.subarray(eol + 2 + size + 2);
                this.waiting.shift()?.(payload);
                continue;
            }
            this.buffer = this.buffer.subarray(eol + 2);
            if (line === "PING") this.socket.write("PONG\r\n");
            else if (line === "PONG") this.pong?.resolve();
            else if (line.startsWith("INFO ")) this.info?.(JSON.parse(line.slice(5)));
            else if (line.startsWith("-ERR")) this.pong?.reject(new Error(`nats: ${line}`));
        }
    }
}
