/** The rules of unadopted repositories: the name glob, which directories count, the adopted default branch. */
import { describe, expect, it } from "@effect/vitest"
import { Option } from "effect"
import * as fc from "fast-check"
import { nameGlob } from "../../src/repo/NameGlob.ts"
import { adoptedDefaultBranch, unadoptedAmong } from "../../src/repo/UnadoptedRepositories.ts"

const escapeGlob = (text: string) => text.replace(/[\\*?[\]{},]/g, "\\$&")

describe("nameGlob", () => {
  it("matches gobwas syntax", () => {
    const cases: ReadonlyArray<readonly [string, string, boolean]> = [
      ["*", "anything", true],
      ["a*", "abc", true],
      ["a*", "bac", false],
      ["?bc", "abc", true],
      ["?bc", "bc", false],
      ["[ab]c", "bc", true],
      ["[!ab]c", "bc", false],
      ["[a-c]x", "bx", true],
      ["[a-c]x", "dx", false],
      ["{foo,bar}*", "barx", true],
      ["{foo,bar}*", "bazx", false],
      ["{a,{b,c}}", "c", true],
      ["a\\*", "a*", true],
      ["a\\*", "ab", false],
      ["a.b", "axb", false],
      ["ada-*", "ada-org", true],
      ["ada-*", "ada", false]
    ]
    for (const [pattern, name, expected] of cases) expect([pattern, name, nameGlob(pattern)(name)]).toEqual([pattern, name, expected])
  })

  it("skips a pattern gobwas would not compile (matches everything)", () => {
    expect(nameGlob("[")("x")).toBe(true)
    expect(nameGlob("[z-a]")("x")).toBe(true)
  })

  it("never throws, whatever the pattern and name", () => {
    fc.assert(fc.property(fc.string({ unit: "grapheme-composite" }), fc.string(), (pattern, name) => {
      expect(typeof nameGlob(pattern)(name)).toBe("boolean")
    }))
  })

  it("an escaped literal matches itself and nothing longer", () => {
    fc.assert(fc.property(fc.string({ minLength: 1 }), (text) => {
      const glob = nameGlob(escapeGlob(text))
      expect(glob(text)).toBe(true)
      expect(glob(`${text}x`)).toBe(false)
    }))
  })
})

describe("unadoptedAmong", () => {
  const directories = [
    { owner: "ada", name: "kept" },
    { owner: "ada", name: "lost" },
    { owner: "ada", name: "x.git" },
    { owner: "ada", name: "Upper" },
    { owner: "ghost", name: "lost" },
    { owner: "org", name: "void" }
  ]
  const rows = [{ owner: "ada", name: "kept" }]
  const owners = new Set(["ada", "org"])

  it("keeps existing owners' usable lower-case names without a row, in storage order", () => {
    expect(unadoptedAmong(directories, rows, owners, "")).toEqual(["ada/lost", "org/void"])
  })

  it("filters by owner glob, then name glob", () => {
    expect(unadoptedAmong(directories, rows, owners, "o*")).toEqual(["org/void"])
    expect(unadoptedAmong(directories, rows, owners, "*/l*")).toEqual(["ada/lost"])
    expect(unadoptedAmong(directories, rows, owners, "ada/v*")).toEqual([])
  })

  it("never lists a location that has a row or an unknown owner", () => {
    const location = fc.record({ owner: fc.constantFrom("ada", "bo", "org"), name: fc.stringMatching(/^[a-z0-9]{1,4}$/) })
    fc.assert(fc.property(fc.array(location), fc.array(location), (found, stored) => {
      const listed = unadoptedAmong(found, stored, owners, "")
      for (const entry of listed) {
        expect(stored.map((row) => `${row.owner}/${row.name}`)).not.toContain(entry)
        expect(owners.has(entry.split("/")[0] ?? "")).toBe(true)
      }
    }))
  })
})

describe("adoptedDefaultBranch", () => {
  it("prefers HEAD's branch, then the instance default, master, main, the first", () => {
    expect(adoptedDefaultBranch(Option.some("dev"), ["dev", "main"], "main")).toEqual(Option.some("dev"))
    expect(adoptedDefaultBranch(Option.some("gone"), ["a", "main", "master"], "main")).toEqual(Option.some("main"))
    expect(adoptedDefaultBranch(Option.some("gone"), ["a", "main", "master"], "trunk")).toEqual(Option.some("master"))
    expect(adoptedDefaultBranch(Option.none(), ["a", "main"], "trunk")).toEqual(Option.some("main"))
    expect(adoptedDefaultBranch(Option.none(), ["b", "a"], "trunk")).toEqual(Option.some("b"))
    expect(adoptedDefaultBranch(Option.some("main"), [], "main")).toEqual(Option.none())
  })
})
