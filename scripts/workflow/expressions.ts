import * as fs from "node:fs";
import * as path from "node:path";

/** What `${{ }}` expressions may read when a workflow runs locally. */
export interface ExpressionContext {
    /** The checkout: hashFiles() looks there. */
    readonly workspace: string;
    /** `github.*` values the local run stands in for (the pull request's base, its number). */
    readonly github: Readonly<Record<string, string>>;
    /** Outputs of the steps run so far, by step id. */
    readonly steps: Readonly<Record<string, Readonly<Record<string, string>>>>;
}

/** An expression this runner cannot evaluate: it stops rather than guess (a wrong guess would pass). */
export class UnsupportedExpression extends Error {}

/** Contexts only GitHub has: a job or step that reads them is skipped, with this reason. */
export function needsGitHub(expression: string): string | undefined {
    const match = /\b(vars|secrets)\.[A-Za-z_]+/.exec(expression);
    return match ? `reads ${match[0]}, which only the repository on GitHub has` : undefined;
}

/** One operand: a quoted literal, hashFiles('path'), or a context reference. */
function operand(text: string, ctx: ExpressionContext): string {
    const t = text.trim();
    const literal = /^'((?:[^']|'')*)'$/.exec(t);
    if (literal) return literal[1].replace(/''/g, "'");
    const hash = /^hashFiles\('([^']+)'\)$/.exec(t);
    if (hash) return fs.existsSync(path.join(ctx.workspace, hash[1])) ? `hash-of-${hash[1]}` : "";
    const step = /^steps\.([A-Za-z0-9_-]+)\.outputs\.([A-Za-z0-9_-]+)$/.exec(t);
    if (step) return ctx.steps[step[1]]?.[step[2]] ?? "";
    const github = /^github\.([A-Za-z0-9_.]+)$/.exec(t);
    if (github && ctx.github[github[1]] !== undefined) return ctx.github[github[1]];
    throw new UnsupportedExpression(`cannot evaluate ${JSON.stringify(t)} locally`);
}

/** The value of an expression: an operand, or `a == b` / `a != b` as "true"/"false". */
export function evaluate(expression: string, ctx: ExpressionContext): string {
    const comparison = /^(.*?)\s*(==|!=)\s*(.*)$/.exec(expression.trim());
    if (!comparison) return operand(expression, ctx);
    if (/&&|\|\|/.test(expression)) throw new UnsupportedExpression(`cannot evaluate ${JSON.stringify(expression)} locally`);
    const equal = operand(comparison[1], ctx) === operand(comparison[3], ctx);
    return String(comparison[2] === "==" ? equal : !equal);
}

/** A string with `${{ }}` parts replaced by their values (env values, `with:` inputs). */
export function interpolate(text: string, ctx: ExpressionContext): string {
    return text.replace(/\$\{\{(.*?)\}\}/g, (_, expression: string) => evaluate(expression, ctx));
}

/** An `if:` condition, with or without its `${{ }}`. */
export function condition(expression: string, ctx: ExpressionContext): boolean {
    const inner = /^\s*\$\{\{(.*)\}\}\s*$/.exec(expression)?.[1] ?? expression;
    return evaluate(inner, ctx) === "true";
}
