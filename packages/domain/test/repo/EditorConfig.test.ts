import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { definitionOf, editorConfigProblem } from "../../src/repo/EditorConfig.ts"

describe("definitionOf", () => {
  it("shows only Forgejo's four keys, as text, leaving out empty and unset values", () => {
    assert.deepStrictEqual(
      definitionOf({
        charset: "utf-8",
        indent_style: "space",
        indent_size: 2,
        end_of_line: "unset",
        tab_width: 2,
        trim_trailing_whitespace: true,
        insert_final_newline: false,
        custom: "x"
      }),
      { charset: "utf-8", indent_style: "space", indent_size: "2" }
    )
    assert.deepStrictEqual(definitionOf({}), {})
  })
})

describe("editorConfigProblem", () => {
  it("accepts real files and refuses too many sections, long headers and many brace sets", () => {
    assert.isUndefined(editorConfigProblem("root = true\n[*]\nindent_style = space\n[*.{js,ts,json}]\nindent_size = 2\n[{Makefile,*.mk}]\nindent_style = tab\n"))
    assert.isUndefined(editorConfigProblem(`[${"{a,b}".repeat(8)}]\n`))
    assert.strictEqual(editorConfigProblem(`[${"{a,b}".repeat(9)}]\n`), ".editorconfig section header has 9 brace sets, more than 8")
    assert.strictEqual(editorConfigProblem(`  [${"a".repeat(300)}]\r\n`), ".editorconfig section header is 302 characters long, more than 256")
    assert.isUndefined(editorConfigProblem("[*]\n".repeat(256)))
    assert.strictEqual(editorConfigProblem("[*]\n".repeat(257)), ".editorconfig has more than 256 sections")
  })

  it("never refuses a file whose headers are within the limits", () => {
    fc.assert(fc.property(fc.array(fc.stringMatching(/^[*.a-z{},]{0,40}$/), { maxLength: 50 }), (globs) => {
      const text = globs.filter((glob) => glob.split("{").length <= 9).map((glob) => `[${glob}]\nx = 1\n`).join("")
      assert.isUndefined(editorConfigProblem(text))
    }))
  })
})
