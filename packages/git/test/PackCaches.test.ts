import { assert, describe, it } from "@effect/vitest"
import { PackCaches } from "../src/PackCaches.ts"

describe("PackCaches", () => {
  it("keeps one cache per repository, evicting the least recently used beyond capacity", () => {
    const caches = new PackCaches(2)
    const a = caches.for("/r/o/a.git")
    assert.strictEqual(caches.for("/r/o/a.git"), a)
    caches.for("/r/o/b.git")
    caches.for("/r/o/a.git") // a is now the most recent
    caches.for("/r/o/c.git")
    assert.isTrue(caches.has("/r/o/a.git"))
    assert.isFalse(caches.has("/r/o/b.git"))
    assert.isTrue(caches.has("/r/o/c.git"))
  })

  it("drops one repository, or every repository of an owner directory", () => {
    const caches = new PackCaches(10)
    for (const path of ["/r/o/a.git", "/r/o/b.git", "/r/other/a.git", "/r/o2/a.git"]) caches.for(path)
    caches.drop("/r/o/a.git")
    assert.isFalse(caches.has("/r/o/a.git"))
    caches.dropUnder("/r/o")
    assert.isFalse(caches.has("/r/o/b.git"))
    assert.isTrue(caches.has("/r/other/a.git"))
    assert.isTrue(caches.has("/r/o2/a.git"))
  })
})
