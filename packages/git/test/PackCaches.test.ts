import { assert, describe, it } from "@effect/vitest"
import { PackCaches } from "../src/PackCaches.ts"

describe("PackCaches", () => {
  it("keeps one cache per repository, evicting the least recently used once the packs pass the byte budget", () => {
    const caches = new PackCaches(100)
    const a = caches.for("/r/o/a.git", 40)
    assert.strictEqual(caches.for("/r/o/a.git", 40), a)
    caches.for("/r/o/b.git", 40)
    caches.for("/r/o/a.git", 40) // a is now the most recent
    caches.for("/r/o/c.git", 40)
    assert.isTrue(caches.has("/r/o/a.git"))
    assert.isFalse(caches.has("/r/o/b.git"))
    assert.isTrue(caches.has("/r/o/c.git"))
    assert.strictEqual(caches.totalBytes, 80)
    // Many small repositories fit where a count bound would have evicted them.
    for (let i = 0; i < 10; i++) caches.for(`/r/small/${i}.git`, 1)
    assert.isTrue(caches.has("/r/o/a.git"))
    assert.strictEqual(caches.totalBytes, 90)
  })

  it("counts a repository's packs as they are now, and gives no cache to one past the budget", () => {
    const caches = new PackCaches(100)
    caches.for("/r/o/a.git", 30)
    caches.for("/r/o/b.git", 30)
    // a grew (a push added a pack): b is evicted to make room.
    assert.isDefined(caches.for("/r/o/a.git", 80))
    assert.isFalse(caches.has("/r/o/b.git"))
    assert.strictEqual(caches.totalBytes, 80)
    assert.isUndefined(caches.for("/r/o/huge.git", 101))
    assert.isFalse(caches.has("/r/o/huge.git"))
    assert.isUndefined(caches.for("/r/o/a.git", 150))
    assert.isFalse(caches.has("/r/o/a.git"))
    assert.strictEqual(caches.totalBytes, 0)
  })

  it("drops one repository, or every repository of an owner directory", () => {
    const caches = new PackCaches(1000)
    for (const path of ["/r/o/a.git", "/r/o/b.git", "/r/other/a.git", "/r/o2/a.git"]) caches.for(path, 10)
    caches.drop("/r/o/a.git")
    assert.isFalse(caches.has("/r/o/a.git"))
    caches.dropUnder("/r/o")
    assert.isFalse(caches.has("/r/o/b.git"))
    assert.isTrue(caches.has("/r/other/a.git"))
    assert.isTrue(caches.has("/r/o2/a.git"))
    assert.strictEqual(caches.totalBytes, 20)
  })
})
