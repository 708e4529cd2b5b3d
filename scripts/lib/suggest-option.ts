import { editDistance } from "../../lib/text/edit-distance";

/**
 * The known option a mistyped one most likely means (names without their `--`): the only one
 * nearest within two edits, else the only one the typed name begins. Two edits must be fewer
 * than the typed name's letters, or `--x` would "mean" every two-letter option.
 */
export function nearestOption(given: string, known: readonly string[]): string | undefined {
    const scored = known.map((name) => ({ name, edits: editDistance(given.toLowerCase(), name.toLowerCase()) }));
    const fewest = Math.min(...scored.map((s) => s.edits));
    const nearest = scored.filter((s) => s.edits === fewest && fewest <= 2 && fewest < given.length);
    if (nearest.length === 1) return nearest[0].name;
    const longer = known.filter((name) => name.startsWith(given));
    return longer.length === 1 ? longer[0] : undefined;
}
