import { assert, describe, it } from "@effect/vitest"
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { actingReferences } from "../src/ActingReferences.ts"

const sourceRoot = join(import.meta.dirname, "..", "src")

/** The key of every Context.Reference the domain's sources define. */
const definedReferenceKeys = (): ReadonlyArray<string> =>
  readdirSync(sourceRoot, { recursive: true, encoding: "utf8" })
    .filter((file) => file.endsWith(".ts"))
    .flatMap((file) => {
      const text = readFileSync(join(sourceRoot, file), "utf8")
      return [...text.matchAll(/Context\.Reference<[\s\S]*?>\(\s*"([^"]+)"/g)].map((match) => match[1] ?? "")
    })

describe("ActingReferences", () => {
  // A Reference missing here would read as its default wherever a request runs on the lean
  // service map (apps/server LeanRequests.ts): a setting, or a deletion guard, silently gone.
  it("lists every Reference the domain defines", () => {
    const defined = [...definedReferenceKeys()].sort()
    assert.isAbove(defined.length, 5)
    assert.deepStrictEqual([...actingReferences.map((reference) => reference.key)].sort(), defined)
  })
})
