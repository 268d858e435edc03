import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import { pathnameOf, queryOf } from "../../src/http/RequestTarget.ts"

const parsed = (target: string): string | undefined => {
  try {
    return new URL(target, "http://internal").pathname
  } catch {
    return undefined
  }
}

describe("pathnameOf", () => {
  it("reads the path of plain targets up to the query or fragment", () => {
    expect(pathnameOf("/api/v1/users/alice")).toBe("/api/v1/users/alice")
    expect(pathnameOf("/api/v1/repos/search?q=a/b#x")).toBe("/api/v1/repos/search")
    expect(pathnameOf("/alice/repo.git/info/refs?service=git-upload-pack")).toBe("/alice/repo.git/info/refs")
  })

  it("leaves what the URL parser rewrites to the parser", () => {
    expect(pathnameOf("/a/../b")).toBe("/b")
    expect(pathnameOf("/a/%2e%2e/b")).toBe("/b")
    expect(pathnameOf("/a\\b")).toBe("/a/b")
    expect(pathnameOf("//host/path")).toBe("/path")
    expect(pathnameOf("/a b")).toBe("/a%20b")
    expect(pathnameOf("/ä")).toBe("/%C3%A4")
  })

  it("reads a target the parser refuses as it came, up to its query", () => {
    expect(pathnameOf("/\\")).toBe("/\\")
    expect(pathnameOf("//")).toBe("//")
    expect(pathnameOf("//a:99999/x/info/refs?service=git-upload-pack")).toBe("//a:99999/x/info/refs")
  })

  it("agrees with the URL parser on any target it accepts, and never throws", () => {
    const piece = fc.constantFrom("a", "Z", "9", "-", "_", "~", ".", "..", "/", "//", "\\", "%2e", "%2F", "%", "?", "#", "@", ":", ";", "&", "=", "+", "$", ",", " ", "\t", "ä", "'", "(", "*")
    const target = fc.array(piece, { maxLength: 16 }).map((pieces) => `/${pieces.join("")}`)
    fc.assert(fc.property(target, (text) => {
      expect(pathnameOf(text)).toBe(parsed(text) ?? text.split(/[?#]/, 1)[0])
    }), { numRuns: 5_000 })
  })
})

describe("queryOf", () => {
  it("is the text between the first ? and the fragment", () => {
    expect(queryOf("/api/v1/user?sudo=alice&page=2#top")).toBe("sudo=alice&page=2")
    expect(queryOf("//a:99999/x?sudo=b?c")).toBe("sudo=b?c")
    expect(queryOf("/api/v1/user")).toBe("")
  })
})
