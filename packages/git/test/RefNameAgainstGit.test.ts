import { assert, describe, it } from "@effect/vitest"
import { spawnSync } from "node:child_process"
import * as fc from "fast-check"
import { isValidRefName } from "@kiln/domain/git/RefName"

// Characters around which the rule has edges; NUL is left out because no argv can carry it.
const edgy = fc.constantFrom(..."ab/.@{}lock ~^:?*[\\\u0001\u007f-_é👀".split(/(?:)/u))
const candidate = fc.array(edgy, { minLength: 1, maxLength: 10 }).map((cs) => cs.join(""))

const gitAccepts = (name: string) =>
  spawnSync("git", ["check-ref-format", `refs/heads/${name}`], { env: { ...process.env, GIT_CONFIG_NOSYSTEM: "1" } })
    .status === 0

describe("isValidRefName", () => {
  it("agrees with git check-ref-format on branch names", () => {
    fc.assert(
      fc.property(candidate.filter((name) => name !== "@"), (name) => isValidRefName(name) === gitAccepts(name)),
      { numRuns: 150 }
    )
  })

  it("is stricter than git only about a lone '@'", () => {
    assert.isTrue(gitAccepts("@"))
    assert.isFalse(isValidRefName("@"))
  })
})
