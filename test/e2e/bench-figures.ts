/** The median and the spread (lowest, highest) of one side's runs, in the runs' unit. */
export function summary(runs: readonly number[]): { median: number; low: number; high: number } {
    if (runs.length === 0) throw new Error("no runs to summarise");
    const sorted = [...runs].sort((a, b) => a - b);
    const mid = Math.floor(sorted.length / 2);
    const median = sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
    return { median, low: sorted[0], high: sorted[sorted.length - 1] };
}
