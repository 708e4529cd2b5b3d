/** JSON with every object's keys sorted, so equal values give equal text whatever their key order. */
export function canonicalJson(value: unknown): string | undefined {
    const sorted = (v: unknown): unknown =>
        Array.isArray(v)
            ? v.map(sorted)
            : v && typeof v === "object"
              ? Object.fromEntries(
                    Object.keys(v)
                        .sort()
                        .map((k) => [k, sorted((v as Record<string, unknown>)[k])]),
                )
              : v;
    return JSON.stringify(sorted(value));
}
