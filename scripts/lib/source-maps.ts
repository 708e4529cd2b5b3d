/**
 * Runs `work` with Node's source maps off, then restores the setting (also on error). tsx turns
 * them on, and with them on Node reads, parses and keeps the source map of every module it
 * loads, the SDKs' thousands of files included. So the commands load their SDK-heavy modules,
 * and the mock engine runs a program (whose first run loads the providers' SDKs and the program),
 * with them off: about a second less for `npm run render` of the dev stack (`npm run bench`),
 * 0.3 to 0.5 s of CPU less for `npm run status`. The setting is process-wide: anything else
 * running in the meantime gets unmapped stack traces, and so do the modules loaded meanwhile
 * (the commands report errors as messages, not stack traces).
 */
export async function withoutSourceMaps<T>(work: () => Promise<T>): Promise<T> {
    const enabled = process.sourceMapsEnabled;
    process.setSourceMapsEnabled(false);
    try {
        return await work();
    } finally {
        process.setSourceMapsEnabled(enabled);
    }
}
