import { assert, describe, it } from "@effect/vitest"
import { decisionKey, GitDecisions } from "../../src/git/GitDecisions.ts"

const request = (credentials?: { username: string; password: string }) =>
  ({ owner: "o", repo: "r", service: "git-upload-pack", credentials }) as const

describe("GitDecisions", () => {
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

  it("keys by service, repository and credentials, without the password itself", () => {
    const alice = decisionKey(request({ username: "alice", password: "secret" }))
    assert.notInclude(alice, "secret")
    assert.notStrictEqual(alice, decisionKey(request({ username: "alice", password: "other" })))
    assert.notStrictEqual(alice, decisionKey(request()))
    assert.notStrictEqual(decisionKey(request()), decisionKey({ ...request(), service: "git-receive-pack" }))
    assert.notStrictEqual(decisionKey(request()), decisionKey({ ...request(), repo: "r2" }))
  })
})
