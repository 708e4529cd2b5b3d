import { Io, reportUsageError, wantsHelp } from "../lib/cli";

const USAGE = "usage: npm run bench [-- <runs>]\n";

const HELP =
    USAGE +
    "\nHow long the program takes to evaluate under Pulumi's mocks with the dev stack's config: a render\n" +
    "of the dev stack (SDK load included), then <runs> warm evaluations (default 10).\n" +
    "Exit: 0 measured, 1 the program failed, 2 usage error.\n";

/**
 * The bench's command line, checked before the bench starts (scripts/bench/program.ts reads its
 * argument as it is). Returns the exit code to stop with, or undefined to run the bench.
 */
export function benchCli(argv: readonly string[], io: Io): number | undefined {
    if (wantsHelp(argv)) {
        io.out(HELP);
        return 0;
    }
    if (argv.length === 0 || (argv.length === 1 && /^[1-9][0-9]*$/.test(argv[0]))) return undefined;
    // No option here for npm to take: `npm run bench 5` reaches the bench as it is, `--` or not.
    const option = argv.find((arg) => arg.startsWith("-"));
    const message =
        option !== undefined
            ? `Unknown option '${option}'`
            : argv.length > 1
              ? `one argument expected; given ${argv.length}`
              : `runs must be a positive whole number; given ${JSON.stringify(argv[0])}`;
    return reportUsageError(io, message, USAGE, undefined);
}
