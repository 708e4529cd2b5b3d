/**
 * A reader that stops early (`npm run --silent render -- --stack dev | head -1`) closes the pipe;
 * the next write then fails with EPIPE, which Node reports as an unhandled 'error' event, stack
 * trace and all. The reader got what it asked for: end quietly with exit 0, as `git log | head`
 * does. Any other write error stays fatal.
 */
export function endQuietlyWhenReaderCloses(
    streams: readonly NodeJS.WriteStream[] = [process.stdout, process.stderr],
    exit: (code: number) => void = (code) => process.exit(code),
): void {
    for (const stream of streams) {
        stream.on("error", (error: NodeJS.ErrnoException) => {
            if (error.code !== "EPIPE") throw error;
            exit(0);
        });
    }
}
