import { assert, describe, it } from "@effect/vitest"
import { definitionOf } from "../../src/repo/EditorConfig.ts"

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
