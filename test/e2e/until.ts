// Apart from cluster.ts, importing nothing: openbao-migrations.ts polls with it, and npm run record:openbao, which loads
// that file, answers --help without loading the Kubernetes client (test/help.test.ts).

/** Polls `probe` until it holds; fails after `timeoutMs`, with what `seen` says was last seen. */
export async function until(what: string, probe: () => Promise<boolean>, timeoutMs = 60_000, seen?: () => string): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!(await probe())) {
        if (Date.now() > deadline) throw new Error(`${what}: not after ${timeoutMs} ms${seen ? `; last seen: ${seen()}` : ""}`);
        await new Promise((r) => setTimeout(r, 250));
    }
}
