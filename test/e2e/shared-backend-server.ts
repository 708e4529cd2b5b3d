/**
 * A backend a team shares, as the end-to-end suite runs it: PostgreSQL (postgres.ts) or an
 * S3-compatible server (s3.ts). What the tests read of it: the stack's checkpoint and locks as
 * the backend stores them, and every key with its last write, to see that a command wrote nothing.
 */
export interface SharedBackend {
    /** As messages name it: "PostgreSQL", "S3". */
    readonly name: string;
    /** What `pulumi login` takes; no credential in it. */
    readonly url: string;
    /** What a client needs in its environment: the credentials. */
    readonly clientEnv: NodeJS.ProcessEnv;
    /** The server's own directory (its data and log). */
    readonly dir: string;
    start(): Promise<void>;
    stop(): Promise<void>;
    removeDir(): void;
    /** True when `text` holds a credential of the backend. */
    leaks(text: string): boolean;
    checkpointKey(project: string, stack: string): string;
    lockKeys(project: string, stack: string): Promise<string[]>;
    /** One stored object (a checkpoint, a lock), as text. */
    blob(key: string): Promise<string>;
    /** Every key with its last write, one a line, sorted. */
    rows(): Promise<string>;
}
