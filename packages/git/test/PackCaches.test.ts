import { assert, describe, it } from "@effect/vitest"
import { PackCaches } from "../src/PackCaches.ts"

/** A read's cache taken and given back at once: what the budget keeps afterwards. */
const touch = (caches: PackCaches, path: string, bytes: number) => {
  const lease = caches.acquire(path, bytes)
  lease?.release()
  return lease?.cache
}

describe("PackCaches", () => {
  it("keeps one cache per repository, evicting the least recently used once the packs pass the byte budget", () => {
    const caches = new PackCaches(100)
    const a = touch(caches, "/r/o/a.git", 40)
    assert.strictEqual(touch(caches, "/r/o/a.git", 40), a)
    touch(caches, "/r/o/b.git", 40)
    touch(caches, "/r/o/a.git", 40) // a is now the most recent
    touch(caches, "/r/o/c.git", 40)
    assert.isTrue(caches.has("/r/o/a.git"))
    assert.isFalse(caches.has("/r/o/b.git"))
    assert.isTrue(caches.has("/r/o/c.git"))
    assert.strictEqual(caches.totalBytes, 80)
    // Many small repositories fit where a count bound would have evicted them.
    for (let i = 0; i < 10; i++) touch(caches, `/r/small/${i}.git`, 1)
    assert.isTrue(caches.has("/r/o/a.git"))
    assert.strictEqual(caches.totalBytes, 90)
  })

  it("counts a repository's packs as they are now, and gives no cache to one past the budget", () => {
    const caches = new PackCaches(100)
    touch(caches, "/r/o/a.git", 30)
    touch(caches, "/r/o/b.git", 30)
    // a grew (a push added a pack): b is evicted to make room.
    assert.isDefined(touch(caches, "/r/o/a.git", 80))
    assert.isFalse(caches.has("/r/o/b.git"))
    assert.strictEqual(caches.totalBytes, 80)
    assert.isUndefined(touch(caches, "/r/o/huge.git", 101))
    assert.isFalse(caches.has("/r/o/huge.git"))
    assert.isUndefined(touch(caches, "/r/o/a.git", 150))
    assert.isFalse(caches.has("/r/o/a.git"))
    assert.strictEqual(caches.totalBytes, 0)
  })

  it("counts the packs of reads in progress: a cache in use is never evicted, and a read that finds no room gets none", () => {
    const caches = new PackCaches(100)
    // Two first reads of distinct repositories at once, each pack 60 of the 100 bytes: the second
    // cannot have a cache while the first may be loading its pack.
    const first = caches.acquire("/r/o/a.git", 60)
    assert.isDefined(first)
    assert.isUndefined(caches.acquire("/r/o/b.git", 60))
    assert.isTrue(caches.has("/r/o/a.git"))
    assert.strictEqual(caches.totalBytes, 60)
    // Another read of the same repository shares its cache and adds nothing.
    const again = caches.acquire("/r/o/a.git", 60)
    assert.strictEqual(again?.cache, first?.cache)
    first?.release()
    assert.isUndefined(caches.acquire("/r/o/b.git", 60))
    again?.release()
    // Once no read uses it, a's cache makes room.
    const second = caches.acquire("/r/o/b.git", 60)
    assert.isDefined(second)
    assert.isFalse(caches.has("/r/o/a.git"))
    assert.strictEqual(caches.totalBytes, 60)
    second?.release()
    second?.release() // a second release changes nothing
    assert.isDefined(caches.acquire("/r/o/c.git", 40))
    assert.strictEqual(caches.totalBytes, 100)
  })

  it("drops one repository, or every repository of an owner directory; one in use counts until its read ends", () => {
    const caches = new PackCaches(1000)
    for (const path of ["/r/o/a.git", "/r/o/b.git", "/r/other/a.git", "/r/o2/a.git"]) touch(caches, path, 10)
    caches.drop("/r/o/a.git")
    assert.isFalse(caches.has("/r/o/a.git"))
    const reading = caches.acquire("/r/o/b.git", 10)
    caches.dropUnder("/r/o")
    assert.isFalse(caches.has("/r/o/b.git"))
    assert.isTrue(caches.has("/r/other/a.git"))
    assert.isTrue(caches.has("/r/o2/a.git"))
    assert.strictEqual(caches.totalBytes, 30)
    reading?.release()
    assert.strictEqual(caches.totalBytes, 20)
  })

  it("tells each read the pack bytes its cache had not been counted for: all at first, then what the packs grew by", () => {
    const caches = new PackCaches(1000)
    const unseen = (path: string, bytes: number) => {
      const lease = caches.acquire(path, bytes)
      lease?.release()
      return lease?.unseenBytes
    }
    assert.strictEqual(unseen("/r/o/a.git", 100), 100)
    assert.strictEqual(unseen("/r/o/a.git", 100), 0)
    // A push brought a pack.
    assert.strictEqual(unseen("/r/o/a.git", 160), 60)
    assert.strictEqual(unseen("/r/o/a.git", 160), 0)
    // A repack that made the packs smaller is no growth.
    assert.strictEqual(unseen("/r/o/a.git", 120), 0)
    // Evicted (or dropped), the cache starts empty again.
    caches.drop("/r/o/a.git")
    assert.strictEqual(unseen("/r/o/a.git", 120), 120)
  })
})
