import assert from "node:assert/strict";
import { test } from "node:test";
import { configError, devRaw, parse } from "../../support/raw-config";
import { CP } from "../support";

test("a domain valid alone that makes a hostname longer than DNS allows; the longest domain that does not", () => {
    // Four labels of 60 and one of 4: 248 characters, a valid DNS name; `*.invocation.` makes it 261.
    const label = "a".repeat(60);
    const domain = `${label}.${label}.${label}.${label}.test`;
    assert.equal(domain.length, 248);
    const { problems } = configError(devRaw({ controlPlane: { global: { domain } } }));
    assert.deepEqual(
        problems.map((p) => p.key),
        [`${CP}.global.domain`],
    );
    assert.match(problems[0].message, /^makes hostnames DNS does not allow: /);
    assert.match(problems[0].message, /invocationWildcard \*\.invocation\.a+\.\.\. \(261 characters\)/);
    const named = [...problems[0].message.matchAll(/(\w+) \S+\.\.\. \((\d+) characters\)/g)].map((m) => m[1]);
    // Over 253: tasks. (254), reval. (254), api-keys. (257), invocation. (259), *.invocation. (261); api., sis., llm. (252) and nats. (253) fit.
    for (const name of ["tasks", "reval", "apiKeys", "invocation", "invocationWildcard"]) assert.ok(named.includes(name), name);
    for (const name of ["api", "sis", "llm", "nats"]) assert.ok(!named.includes(name), name);
    assert.equal(problems[0].given, domain);
    assert.equal(problems[0].allowed, "a domain of at most 240 characters (the longest name made from it adds 13)");
    // 240 characters: `*.invocation.` makes exactly 253.
    const longest = `${label}.${label}.${label}.${"a".repeat(52)}.test`;
    assert.equal(longest.length, 240);
    parse(devRaw({ controlPlane: { global: { domain: longest } } }));
});
