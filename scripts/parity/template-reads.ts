/**
 * Which value paths a set of Go templates (Helm charts, Helmfile `.gotmpl` files) reads, found by
 * reading the templates, not by running them. An abstract interpreter: every expression
 * evaluates to where its value comes from (a path under `.Values`, a `dict` of such, the root
 * context, or unknown), `with`/`range`/variables/`include` carry that through, and a path is
 * recorded as read where a value is used: printed, passed to a function, compared or tested.
 *
 * A read is `whole` when the value itself is used (printed, `toYaml`, passed on): everything under
 * it is read. It is a `test` when only its truth or presence is (`if`, `and`, `hasKey`, `len`):
 * the path itself is read, nothing under it. Where a construct is not understood, the result is
 * "unknown", which records nothing (a read missed, never invented); a map handed to a function
 * this reader does not know counts as read whole.
 */

/** A path under `.Values`; "*" stands for any key or list index. */
export type ValuePath = readonly string[];
export interface Read {
    readonly path: ValuePath;
    readonly whole: boolean;
}

type Value =
    | { readonly kind: "root" }
    | { readonly kind: "path"; readonly path: ValuePath }
    | { readonly kind: "dict"; readonly entries: ReadonlyMap<string, Value> }
    | { readonly kind: "list"; readonly items: readonly Value[] }
    | { readonly kind: "string"; readonly text: string }
    /** One of several values (the items of a list ranged over). */
    | { readonly kind: "union"; readonly options: readonly Value[] }
    | { readonly kind: "unknown" };

const ROOT: Value = { kind: "root" };
const UNKNOWN: Value = { kind: "unknown" };

// ---- lexing ------------------------------------------------------------------------------------

type Token =
    | { t: "str"; v: string }
    | { t: "num"; v: string }
    | { t: "id"; v: string }
    /** `.a.b` (fields of dot), `$x.a.b`, `$.a`, or `.a` right after a `)`. */
    | { t: "var"; v: string; fields: string[] }
    | { t: "field"; fields: string[] }
    | { t: "punct"; v: "(" | ")" | "|" | ":=" | "=" | "," };

/** The actions of a template text (the insides of `{{ }}`, trim markers and comments removed). */
export function actions(text: string): string[] {
    const out: string[] = [];
    let i = 0;
    while (true) {
        const open = text.indexOf("{{", i);
        if (open < 0) break;
        let j = open + 2;
        let quote: string | undefined;
        for (; j < text.length; j++) {
            const c = text[j];
            if (quote) {
                if (c === "\\" && quote === '"') j++;
                else if (c === quote) quote = undefined;
            } else if (c === '"' || c === "`") quote = c;
            else if (c === "/" && text[j + 1] === "*") {
                const end = text.indexOf("*/", j + 2);
                j = end < 0 ? text.length : end + 1;
            } else if (c === "}" && text[j + 1] === "}") break;
        }
        let body = text.slice(open + 2, j);
        body = body.replace(/^-\s/, "").replace(/\s-$/, "").trim();
        if (!body.startsWith("/*")) out.push(body);
        i = j + 2;
    }
    return out;
}

function lex(action: string): Token[] {
    const tokens: Token[] = [];
    let i = 0;
    const fieldsAt = (start: number): [string[], number] => {
        const fields: string[] = [];
        let k = start;
        while (action[k] === "." && /[A-Za-z_]/.test(action[k + 1] ?? "")) {
            const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(action.slice(k + 1));
            if (!m) break;
            fields.push(m[0]);
            k += 1 + m[0].length;
        }
        return [fields, k];
    };
    while (i < action.length) {
        const c = action[i];
        if (/\s/.test(c)) {
            i++;
        } else if (c === '"') {
            let j = i + 1;
            let v = "";
            while (j < action.length && action[j] !== '"') {
                if (action[j] === "\\") {
                    v += action[j + 1];
                    j += 2;
                } else v += action[j++];
            }
            tokens.push({ t: "str", v });
            i = j + 1;
        } else if (c === "`") {
            const j = action.indexOf("`", i + 1);
            tokens.push({ t: "str", v: action.slice(i + 1, j < 0 ? undefined : j) });
            i = j < 0 ? action.length : j + 1;
        } else if (c === "'") {
            const j = action.indexOf("'", i + 1);
            tokens.push({ t: "num", v: action.slice(i + 1, j) });
            i = j < 0 ? action.length : j + 1;
        } else if (c === "(" || c === ")" || c === "|" || c === ",") {
            tokens.push({ t: "punct", v: c });
            i++;
            if (c === ")") {
                const [fields, k] = fieldsAt(i);
                if (fields.length > 0) {
                    tokens.push({ t: "field", fields });
                    (tokens[tokens.length - 1] as { afterParen?: boolean }).afterParen = true;
                    i = k;
                }
            }
        } else if (c === ":" && action[i + 1] === "=") {
            tokens.push({ t: "punct", v: ":=" });
            i += 2;
        } else if (c === "=" && action[i + 1] !== "=") {
            tokens.push({ t: "punct", v: "=" });
            i++;
        } else if (c === "$") {
            const m = /^\$[A-Za-z0-9_]*/.exec(action.slice(i))!;
            const [fields, k] = fieldsAt(i + m[0].length);
            tokens.push({ t: "var", v: m[0], fields });
            i = k;
        } else if (c === ".") {
            const [fields, k] = fieldsAt(i);
            tokens.push({ t: "field", fields });
            i = fields.length > 0 ? k : i + 1;
        } else if (/[0-9-+]/.test(c)) {
            const m = /^[-+]?[0-9][0-9a-fA-FxXoO._eE+-]*/.exec(action.slice(i));
            if (m) {
                tokens.push({ t: "num", v: m[0] });
                i += m[0].length;
            } else i++;
        } else if (/[A-Za-z_]/.test(c)) {
            const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(action.slice(i))!;
            tokens.push({ t: "id", v: m[0] });
            i += m[0].length;
        } else {
            i++;
        }
    }
    return tokens;
}

// ---- evaluation --------------------------------------------------------------------------------

interface Scope {
    dot: Value;
    dollar: Value;
    vars: Map<string, Value>;
}

/** Functions whose result is their (last) value argument, unread: reading happens where the result is used. */
const PASS_THROUGH = new Set(["default", "required", "deepCopy", "mustDeepCopy"]);
/** Functions that only test their arguments. */
const TESTS = new Set(["and", "or", "not", "empty", "len", "kindIs", "typeIs", "kindOf", "typeOf", "hasKey"]);

export class TemplateReads {
    readonly reads: Read[] = [];
    private readonly defines = new Map<string, string[]>();
    private readonly analysed = new Set<string>();
    private depth = 0;

    /** Adds the `define` blocks of these texts (a chart's `_helpers.tpl` and its other templates). */
    addDefines(texts: readonly string[]): void {
        for (const text of texts) {
            const acts = actions(text);
            for (let i = 0; i < acts.length; i++) {
                const m = /^define\s+"([^"]+)"/.exec(acts[i]);
                if (!m) continue;
                let depth = 1;
                const body: string[] = [];
                for (i++; i < acts.length; i++) {
                    const a = acts[i];
                    if (/^(if|with|range|define|block)\b/.test(a)) depth++;
                    if (/^end\b/.test(a) && --depth === 0) break;
                    body.push(a);
                }
                this.defines.set(m[1], body);
            }
        }
    }

    /** Reads what a template text reads, with `.` and `$` the chart's root context (or `dot`). */
    analyse(text: string, dot: Value = ROOT): void {
        const acts = actions(text);
        // The define blocks are analysed where they are included, with the argument they get.
        const top: string[] = [];
        let skip = 0;
        for (const a of acts) {
            if (/^define\b/.test(a)) {
                skip++;
                continue;
            }
            if (skip > 0) {
                if (/^(if|with|range|block)\b/.test(a)) skip++;
                if (/^end\b/.test(a)) skip--;
                continue;
            }
            top.push(a);
        }
        this.run(top, { dot, dollar: dot, vars: new Map() });
    }

    private record(value: Value, whole: boolean): void {
        if (value.kind === "path") this.reads.push({ path: value.path, whole });
        else if (value.kind === "dict") for (const v of value.entries.values()) this.record(v, whole);
        else if (value.kind === "list") for (const v of value.items) this.record(v, whole);
        else if (value.kind === "union") for (const v of value.options) this.record(v, whole);
    }

    /** Runs a block of actions: `if`/`with`/`range` open scopes, `end` closes them. */
    private run(acts: readonly string[], scope: Scope): void {
        const stack: Scope[] = [scope];
        const current = () => stack[stack.length - 1];
        const open = (s: Scope) => stack.push(s);
        const child = (dot?: Value): Scope => ({ dot: dot ?? current().dot, dollar: current().dollar, vars: new Map(current().vars) });
        for (const act of acts) {
            const tokens = lex(act);
            const head = tokens[0];
            if (!head) continue;
            const word = head.t === "id" ? head.v : undefined;
            if (word === "end") {
                if (stack.length > 1) stack.pop();
                continue;
            }
            if (word === "else") {
                // `else`, `else if p`, `else with p`: a sibling scope of the one that closes.
                if (stack.length > 1) stack.pop();
                const kind = tokens[1]?.t === "id" ? (tokens[1] as { v: string }).v : undefined;
                if (kind === "with") {
                    const v = this.pipeline(tokens.slice(2), current());
                    this.record(v, false);
                    open(child(v));
                } else {
                    if (kind === "if") this.record(this.pipeline(tokens.slice(2), current()), false);
                    open(child());
                }
                continue;
            }
            if (word === "if") {
                this.record(this.pipeline(tokens.slice(1), current()), false);
                open(child());
            } else if (word === "with") {
                const v = this.pipeline(tokens.slice(1), current());
                this.record(v, false);
                open(child(v));
            } else if (word === "range") {
                this.range(tokens.slice(1), current(), open, child);
            } else if (word === "block") {
                open(child());
            } else if (word === "template") {
                this.include(tokens.slice(1), current());
            } else if (word === "break" || word === "continue") {
                continue;
            } else {
                // An output or an assignment: a value printed is read whole.
                const v = this.statement(tokens, current());
                if (v) this.record(v, true);
            }
        }
    }

    private range(tokens: Token[], scope: Scope, open: (s: Scope) => void, child: (dot?: Value) => Scope): void {
        const assign = tokens.findIndex((t) => t.t === "punct" && t.v === ":=");
        const vars = assign >= 0 ? tokens.slice(0, assign).filter((t): t is Token & { t: "var" } => t.t === "var") : [];
        const over = this.pipeline(assign >= 0 ? tokens.slice(assign + 1) : tokens, scope);
        // Ranging over a map or list reads which entries it has; the entries are read where used.
        this.record(over, false);
        const element = elementOf(over);
        const s = child(element);
        if (vars.length === 2) {
            s.vars.set(vars[0].v, UNKNOWN);
            s.vars.set(vars[1].v, element);
        } else if (vars.length === 1) s.vars.set(vars[0].v, element);
        open(s);
    }

    /** `$x := p`, `$x = p` (binds, reads nothing yet), or a pipeline whose value is returned. */
    private statement(tokens: Token[], scope: Scope): Value | undefined {
        if (tokens.length >= 2 && tokens[0].t === "var" && tokens[1].t === "punct" && (tokens[1].v === ":=" || tokens[1].v === "=")) {
            const value = this.pipeline(tokens.slice(2), scope);
            const name = (tokens[0] as { v: string }).v;
            if ((tokens[0] as { fields: string[] }).fields.length === 0) scope.vars.set(name, value);
            return undefined;
        }
        return this.pipeline(tokens, scope);
    }

    /** Evaluates `cmd | cmd | ...`: each stage's value is the last argument of the next. */
    private pipeline(tokens: Token[], scope: Scope): Value {
        const stages: Token[][] = [[]];
        let depth = 0;
        for (const t of tokens) {
            if (t.t === "punct" && t.v === "(") depth++;
            if (t.t === "punct" && t.v === ")") depth--;
            if (depth === 0 && t.t === "punct" && t.v === "|") stages.push([]);
            else stages[stages.length - 1].push(t);
        }
        let value: Value | undefined;
        for (const stage of stages) value = this.command(stage, scope, value);
        return value ?? UNKNOWN;
    }

    /** One command: an operand, or a function and its arguments (plus the piped value). */
    private command(tokens: Token[], scope: Scope, piped: Value | undefined): Value {
        const args: { value: Value; literal?: string }[] = [];
        let fn: string | undefined;
        let i = 0;
        if (tokens[0]?.t === "id" && !["true", "false", "nil"].includes(tokens[0].v)) {
            fn = tokens[0].v;
            i = 1;
        }
        while (i < tokens.length) {
            const t = tokens[i];
            if (t.t === "punct" && t.v === "(") {
                let depth = 1;
                let j = i + 1;
                for (; j < tokens.length && depth > 0; j++) {
                    if (tokens[j].t === "punct" && (tokens[j] as { v: string }).v === "(") depth++;
                    if (tokens[j].t === "punct" && (tokens[j] as { v: string }).v === ")") depth--;
                }
                let value = this.pipeline(tokens.slice(i + 1, j - 1), scope);
                // `(expr).field`
                const next = tokens[j];
                if (next && next.t === "field" && (next as { afterParen?: boolean }).afterParen) {
                    value = fieldsOf(value, next.fields);
                    j++;
                }
                args.push({ value });
                i = j;
                continue;
            }
            args.push(this.operand(t, scope));
            i++;
        }
        if (piped) args.push({ value: piped });
        if (!fn) {
            // A bare operand (or several, which Go would reject): its value.
            return args[0]?.value ?? UNKNOWN;
        }
        return this.call(fn, args);
    }

    private operand(t: Token, scope: Scope): { value: Value; literal?: string } {
        switch (t.t) {
            case "str":
                return { value: { kind: "string", text: t.v }, literal: t.v };
            case "num":
                return { value: UNKNOWN, literal: t.v };
            case "id":
                // A niladic function (`dict`, `list`, `now`) or a constant.
                return {
                    value: t.v === "dict" ? { kind: "dict", entries: new Map() } : t.v === "list" ? { kind: "list", items: [] } : UNKNOWN,
                };
            case "field":
                return { value: fieldsOf(scope.dot, t.fields) };
            case "var": {
                const base = t.v === "$" ? scope.dollar : (scope.vars.get(t.v) ?? UNKNOWN);
                return { value: fieldsOf(base, t.fields) };
            }
            default:
                return { value: UNKNOWN };
        }
    }

    private call(fn: string, args: { value: Value; literal?: string }[]): Value {
        const keys = (from: number, to: number) => args.slice(from, to).map((a) => a.literal);
        const values = args.map((a) => a.value);
        switch (fn) {
            case "index": {
                const [base, ...rest] = args;
                return rest.reduce<Value>((v, k) => fieldsOf(v, [k.literal ?? "*"]), base?.value ?? UNKNOWN);
            }
            case "dig": {
                // dig "k1" ... "kN" default map
                if (args.length < 3) return UNKNOWN;
                const map = values[values.length - 1];
                this.record(values[values.length - 2], true);
                return fieldsOf(
                    map,
                    keys(0, args.length - 2).map((k) => k ?? "*"),
                );
            }
            case "get":
            case "pluck": {
                const [a, b] = fn === "get" ? [args[0], args[1]] : [args[1], args[0]];
                return fieldsOf(a?.value ?? UNKNOWN, [b?.literal ?? "*"]);
            }
            case "hasKey": {
                this.record(fieldsOf(values[0] ?? UNKNOWN, [args[1]?.literal ?? "*"]), false);
                return UNKNOWN;
            }
            case "dict": {
                const entries = new Map<string, Value>();
                for (let k = 0; k + 1 < args.length; k += 2) entries.set(args[k].literal ?? "*", values[k + 1]);
                return { kind: "dict", entries };
            }
            case "list":
                return { kind: "list", items: values };
            case "set": {
                this.record(values[2] ?? UNKNOWN, true);
                return values[0] ?? UNKNOWN;
            }
            case "include":
            case "template":
            case "tpl": {
                if (fn === "tpl") {
                    this.record(values[0] ?? UNKNOWN, true);
                    return UNKNOWN;
                }
                this.includeWith(args[0]?.literal, values[1] ?? UNKNOWN);
                return UNKNOWN;
            }
            case "merge":
            case "mergeOverwrite":
            case "mustMerge":
            case "mustMergeOverwrite":
                for (const v of values) this.record(v, true);
                return values[0] ?? UNKNOWN;
            case "ternary":
                this.record(values[2] ?? UNKNOWN, false);
                this.record(values[0] ?? UNKNOWN, true);
                this.record(values[1] ?? UNKNOWN, true);
                return UNKNOWN;
            default:
                if (PASS_THROUGH.has(fn)) {
                    // default D V / required "msg" V / deepCopy V: the value is V (or D, read whole).
                    for (const v of values.slice(0, -1)) if (fn === "default") this.record(v, true);
                    return values[values.length - 1] ?? UNKNOWN;
                }
                for (const v of values) this.record(v, !TESTS.has(fn));
                return UNKNOWN;
        }
    }

    private include(tokens: Token[], scope: Scope): void {
        const name = tokens[0]?.t === "str" ? tokens[0].v : undefined;
        this.includeWith(name, tokens.length > 1 ? this.pipeline(tokens.slice(1), scope) : UNKNOWN);
    }

    /** Analyses a define block with `.` and `$` the argument it is given, once per argument. */
    private includeWith(name: string | undefined, arg: Value): void {
        if (!name) return;
        const body = this.defines.get(name);
        if (!body) return;
        const key = `${name}\u0000${JSON.stringify(arg, (_, v: unknown) => (v instanceof Map ? [...v] : v))}`;
        if (this.analysed.has(key) || this.depth > 20) return;
        this.analysed.add(key);
        this.depth++;
        this.run(body, { dot: arg, dollar: arg, vars: new Map() });
        this.depth--;
    }
}

/** A value's fields: `.Values` of the root is the values; a path grows; a dict gives its entry. */
function fieldsOf(base: Value, fields: readonly string[]): Value {
    return fields.reduce<Value>(field, base);
}

function field(v: Value, f: string): Value {
    switch (v.kind) {
        case "union":
            return { kind: "union", options: v.options.map((o) => field(o, f)) };
        case "root":
            return f === "Values" ? { kind: "path", path: [] } : UNKNOWN;
        case "path":
            return { kind: "path", path: [...v.path, f] };
        case "dict":
            return v.entries.get(f) ?? UNKNOWN;
        default:
            return UNKNOWN;
    }
}

/** What ranging over a value gives: a path's entries, any of a list's items. */
function elementOf(over: Value): Value {
    if (over.kind === "union") return { kind: "union", options: over.options.map(elementOf) };
    if (over.kind === "path") return { kind: "path", path: [...over.path, "*"] };
    if (over.kind === "list" && over.items.length > 0)
        return over.items.length === 1 ? over.items[0] : { kind: "union", options: over.items };
    return UNKNOWN;
}

/** The value paths a set of template texts reads (defines from all of them, each analysed from the root). */
export function templateReads(texts: readonly string[], dot: Value = ROOT): Read[] {
    const r = new TemplateReads();
    r.addDefines(texts);
    for (const text of texts) r.analyse(text, dot);
    return r.reads;
}

/** True when `path` (a value written) is read: itself, or under a path read whole. "*" matches any key. */
export function isRead(reads: readonly Read[], path: ValuePath): boolean {
    return reads.some((r) => {
        if (r.path.length > path.length) return false;
        if (!r.whole && r.path.length !== path.length) return false;
        return r.path.every((p, i) => p === "*" || path[i] === "*" || p === path[i]);
    });
}
