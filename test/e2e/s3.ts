import { spawn, type ChildProcess } from "node:child_process";
import * as crypto from "node:crypto";
import * as fs from "node:fs";
import * as http from "node:http";
import * as os from "node:os";
import * as path from "node:path";
import { freePorts, stopProcess, stopWithThisProcess } from "./cluster";
import type { SharedBackend } from "./shared-backend-server";

/**
 * An S3-compatible server for Pulumi's DIY S3 backend (`s3://`, gocloud.dev's s3blob over the
 * AWS SDK v2): gofakes3 (github.com/johannesboyne/gofakes3, built by scripts/e2e/build-tools.sh's
 * `s3` tool; scripts/e2e/tools.ts findS3Server), in memory, on 127.0.0.1 at a free port, with the bucket made at start. The backend
 * reaches it through the URL's `endpoint` and `use_path_style` (gocloud.dev/blob/s3blob), the keys
 * in AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY as on any S3; gofakes3 checks no signature, so it
 * proves the backend's layout and locking, not IAM.
 */
const BUCKET = "nvcf-state";

export class S3Server implements SharedBackend {
    readonly name = "S3";
    readonly dir: string;
    port = 0;
    private proc?: ChildProcess;
    private readonly secret = crypto.randomBytes(18).toString("hex");

    constructor(private readonly bin: string) {
        this.dir = fs.mkdtempSync(path.join(os.tmpdir(), "nvcf-e2e-s3-"));
    }

    get url(): string {
        return `s3://${BUCKET}?endpoint=http://127.0.0.1:${this.port}&use_path_style=true&region=us-east-1`;
    }

    get clientEnv(): NodeJS.ProcessEnv {
        // No instance metadata here: the SDK would try it for a region or credentials otherwise.
        return { AWS_ACCESS_KEY_ID: "e2e", AWS_SECRET_ACCESS_KEY: this.secret, AWS_EC2_METADATA_DISABLED: "true" };
    }

    leaks(text: string): boolean {
        return text.includes(this.secret);
    }

    async start(): Promise<void> {
        [this.port] = await freePorts(1);
        const log = fs.openSync(path.join(this.dir, "gofakes3.log"), "a");
        this.proc = stopWithThisProcess(
            spawn(this.bin, ["-backend", "memory", "-host", `127.0.0.1:${this.port}`, "-initialbucket", BUCKET], {
                stdio: ["ignore", log, log],
            }),
        );
        fs.closeSync(log);
        const deadline = Date.now() + 30_000;
        for (;;) {
            const ok = await this.get(`/${BUCKET}?list-type=2`).then(
                (r) => r.status === 200,
                () => false,
            );
            if (ok) return;
            if (this.proc.exitCode !== null)
                throw new Error(`gofakes3 exited:\n${fs.readFileSync(path.join(this.dir, "gofakes3.log"), "utf8")}`);
            if (Date.now() > deadline) throw new Error("gofakes3 not ready after 30 s");
            await new Promise((r) => setTimeout(r, 100));
        }
    }

    async stop(): Promise<void> {
        await stopProcess(this.proc);
    }

    removeDir(): void {
        fs.rmSync(this.dir, { recursive: true, force: true });
    }

    /** The DIY layout's path at the bucket's root (no path in the URL). */
    checkpointKey(project: string, stack: string): string {
        return `.pulumi/stacks/${project}/${stack}.json`;
    }

    async lockKeys(project: string, stack: string): Promise<string[]> {
        return (await this.list(`.pulumi/locks/organization/${project}/${stack}/`)).map((o) => o.key);
    }

    async blob(key: string): Promise<string> {
        const res = await this.get(`/${BUCKET}/${key.split("/").map(encodeURIComponent).join("/")}`);
        if (res.status !== 200) throw new Error(`GET ${key}: ${res.status} ${res.body.slice(0, 300)}`);
        return res.body;
    }

    async rows(): Promise<string> {
        return (await this.list(""))
            .map((o) => `${o.key} ${o.etag} ${o.modified}`)
            .sort()
            .join("\n");
    }

    /** ListObjectsV2 (one page: the suite's stacks hold far fewer than 1000 objects). */
    private async list(prefix: string): Promise<{ key: string; etag: string; modified: string }[]> {
        const res = await this.get(`/${BUCKET}?list-type=2&prefix=${encodeURIComponent(prefix)}`);
        if (res.status !== 200) throw new Error(`listing ${prefix}: ${res.status} ${res.body.slice(0, 300)}`);
        if (/<IsTruncated>true<\/IsTruncated>/.test(res.body)) throw new Error(`listing ${prefix}: more than one page`);
        const tag = (xml: string, name: string) => new RegExp(`<${name}>([^<]*)</${name}>`).exec(xml)?.[1] ?? "";
        return [...res.body.matchAll(/<Contents>([\s\S]*?)<\/Contents>/g)]
            .map((m) => ({ key: tag(m[1], "Key"), etag: tag(m[1], "ETag"), modified: tag(m[1], "LastModified") }))
            .sort((a, b) => a.key.localeCompare(b.key));
    }

    private get(p: string): Promise<{ status: number; body: string }> {
        return new Promise((resolve, reject) => {
            const req = http.get({ host: "127.0.0.1", port: this.port, path: p, timeout: 10_000 }, (res) => {
                let body = "";
                res.setEncoding("utf8");
                res.on("data", (c: string) => (body += c));
                res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
            });
            req.on("timeout", () => req.destroy(new Error(`GET ${p}: timed out`)));
            req.on("error", reject);
        });
    }
}
