import { assert, describe, it } from "@effect/vitest"
import { makeKeptKeyLookups } from "../../src/ssh/KeptKeyLookups.ts"

const counting = (answer: (fingerprint: string) => Promise<string> = (fingerprint) => Promise.resolve(`identity of ${fingerprint}`)) => {
  const reads: Array<string> = []
  return {
    reads,
    read: (fingerprint: string) => {
      reads.push(fingerprint)
      return answer(fingerprint)
    }
  }
}

describe("KeptKeyLookups", () => {
  it("reads a key once while the access version holds, and again once it moved", async () => {
    const store = counting()
    let version = 7
    const lookUp = makeKeptKeyLookups(store.read, () => version)
    assert.strictEqual(await lookUp("SHA256:a").found, "identity of SHA256:a")
    assert.strictEqual(await lookUp("SHA256:a").found, "identity of SHA256:a")
    assert.strictEqual(lookUp("SHA256:a").version, 7)
    assert.deepStrictEqual(store.reads, ["SHA256:a"])
    // A key deleted, an account disabled, a deploy key's grant changed: any process moves the version.
    version = 8
    const again = lookUp("SHA256:a")
    assert.strictEqual(again.version, 8)
    await again.found
    assert.deepStrictEqual(store.reads, ["SHA256:a", "SHA256:a"])
    await lookUp("SHA256:b").found
    assert.deepStrictEqual(store.reads, ["SHA256:a", "SHA256:a", "SHA256:b"])
  })

  it("keeps nothing without an access version", async () => {
    const store = counting()
    const lookUp = makeKeptKeyLookups(store.read, () => undefined)
    await lookUp("SHA256:a").found
    await lookUp("SHA256:a").found
    assert.deepStrictEqual(store.reads, ["SHA256:a", "SHA256:a"])
  })

  it("does not keep a lookup that failed", async () => {
    let fail = true
    const store = counting(() => (fail ? Promise.reject(new Error("database down")) : Promise.resolve("found")))
    const lookUp = makeKeptKeyLookups(store.read, () => 1)
    const failed = await lookUp("SHA256:a").found.then(() => "resolved", () => "rejected")
    assert.strictEqual(failed, "rejected")
    fail = false
    assert.strictEqual(await lookUp("SHA256:a").found, "found")
    assert.strictEqual(await lookUp("SHA256:a").found, "found")
    assert.deepStrictEqual(store.reads, ["SHA256:a", "SHA256:a"])
  })

  it("keeps at most its capacity, dropping the oldest lookup first", async () => {
    const store = counting()
    const lookUp = makeKeptKeyLookups(store.read, () => 1, 2)
    await lookUp("a").found
    await lookUp("b").found
    await lookUp("c").found
    await lookUp("c").found
    await lookUp("b").found
    await lookUp("a").found
    assert.deepStrictEqual(store.reads, ["a", "b", "c", "a"])
  })
})
