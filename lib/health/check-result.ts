/** What each check of preflight, the health gate, the staged upgrade and `npm run status` answers. */
export interface CheckResult {
    /** Stable, short: the table's first column and the key of `--json`. */
    readonly name: string;
    readonly ok: boolean;
    /** What was found, one sentence. */
    readonly detail: string;
    /** What to do about it, with the command to look closer; "" when ok. */
    readonly fix: string;
    /**
     * With `ok: false`: the check could not tell (the edge could not be reached from here). Never
     * a pass, but it does not hold the health gate or fail `status`: it is reported as it is.
     */
    readonly inconclusive?: boolean;
}

/** A result that fails the gate, a stage or `status`: not ok, and not merely inconclusive. */
export const failed = (r: CheckResult): boolean => !r.ok && r.inconclusive !== true;
