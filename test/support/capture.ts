import type { Io } from "../../scripts/lib/cli";

/** An Io for the CLI commands that keeps what they print, for assertions. */
export function capture(): Io & { stdout: string; stderr: string } {
    const io = {
        stdout: "",
        stderr: "",
        out: (text: string) => void (io.stdout += text),
        err: (text: string) => void (io.stderr += text),
    };
    return io;
}
