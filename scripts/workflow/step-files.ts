import * as fs from "node:fs";

/**
 * What a step wrote to $GITHUB_OUTPUT or $GITHUB_ENV: `name=value` lines, or
 * `name<<DELIMITER` ... `DELIMITER` for several lines.
 */
export function readKeyValues(file: string): Record<string, string> {
    const out: Record<string, string> = {};
    if (!fs.existsSync(file)) return out;
    const lines = fs.readFileSync(file, "utf8").split("\n");
    for (let i = 0; i < lines.length; i++) {
        const heredoc = /^([^=<]+)<<(.+)$/.exec(lines[i]);
        if (heredoc) {
            const end = lines.indexOf(heredoc[2], i + 1);
            if (end < 0) throw new Error(`${file}: ${heredoc[1]}<<${heredoc[2]} is never closed`);
            out[heredoc[1]] = lines.slice(i + 1, end).join("\n");
            i = end;
            continue;
        }
        const eq = lines[i].indexOf("=");
        if (eq > 0) out[lines[i].slice(0, eq)] = lines[i].slice(eq + 1);
    }
    return out;
}
