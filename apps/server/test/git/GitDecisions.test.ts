import { assert, describe, it } from "@effect/vitest"
import type { GitAccessRequest } from "@kiln/git"
import { decisionVersion, GitDecisions } from "../../src/git/GitDecisions.ts"

const request = (credentials?: { username: string; password: string }): GitAccessRequest =>
  ({ owner: "o", repo: "r", service: "git-upload-pack", credentials })

describe("GitDecisions", () => {
  it("keeps decisions for the access version, but a signed-in push's for the data version while quotas are enforced", () => {
    const changes = { version: () => 7, accessVersion: () => 3, changed: () => {} }
    for (const anonymous of [false, true]) {
      assert.strictEqual(decisionVersion(changes, "git-upload-pack", false, anonymous), 3)
      assert.strictEqual(decisionVersion(changes, "git-upload-pack", true, anonymous), 3)
      assert.strictEqual(decisionVersion(changes, "git-receive-pack", false, anonymous), 3)
    }
    assert.strictEqual(decisionVersion(changes, "git-receive-pack", true, false), 7)
    // Refused before any quota is read: nothing a push writes changes it.
    assert.strictEqual(decisionVersion(changes, "git-receive-pack", true, true), 3)
  })

  it("answers a decision at the version it was made at only, and not after its time", () => {
    let now = 0
    const decisions = new GitDecisions<string>({ maxEntries: 8, ttlMillis: 1_000, now: () => now })
    decisions.set("k", 3, "allowed")
    assert.strictEqual(decisions.get("k", 3), "allowed")
    assert.isUndefined(decisions.get("k", 4))
    assert.isUndefined(decisions.get("other", 3))
    now = 999
    assert.strictEqual(decisions.get("k", 3), "allowed")
    now = 1_000
    assert.isUndefined(decisions.get("k", 3))
  })

  it("holds at most its bound: the older half goes whole", () => {
    const decisions = new GitDecisions<number>({ maxEntries: 4, ttlMillis: 60_000 })
    for (let i = 0; i < 5; i++) decisions.set(`k${i}`, 1, i)
    assert.deepStrictEqual([0, 1, 2, 3, 4].map((i) => decisions.get(`k${i}`, 1)), [undefined, undefined, 2, 3, 4])
  })

  it("keys by service, repository and credentials, with fixed-size keyed digests that hold no password", () => {
    const decisions = new GitDecisions<string>({ maxEntries: 8, ttlMillis: 1_000 })
    const key = (change: Partial<GitAccessRequest> = {}, credentials?: { username: string; password: string }) =>
      decisions.keyOf({ ...request(credentials), ...change })
    const alice = key({}, { username: "alice", password: "secret" })
    assert.notInclude(alice, "secret")
    assert.strictEqual(alice, key({}, { username: "alice", password: "secret" }))
    assert.notStrictEqual(alice, key({}, { username: "alice", password: "other" }))
    assert.notStrictEqual(alice, key({}, { username: "alic", password: "esecret" }))
    assert.notStrictEqual(key(), key({ service: "git-receive-pack" }))
    assert.notStrictEqual(key(), key({ repo: "r2" }))
    assert.notStrictEqual(key({ owner: "ab", repo: "c" }), key({ owner: "a", repo: "bc" }))
    assert.strictEqual(key({ repo: "x".repeat(100_000) }).length, alice.length)
    // Another process (or a restart) digests with a secret of its own.
    assert.notStrictEqual(alice, new GitDecisions<string>({ maxEntries: 8, ttlMillis: 1_000 }).keyOf(request({ username: "alice", password: "secret" })))
  })
})
