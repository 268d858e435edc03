/** git-lfs's published JSON schemas (vendored in test/fixtures/git-lfs-schemas), as assertions. */
import { readFileSync } from "node:fs"
import { assert } from "@effect/vitest"
import AjvModule from "ajv-draft-04"

const schemaNames = [
  "http-batch-request",
  "http-batch-response",
  "http-lock-create-request",
  "http-lock-create-response",
  "http-lock-delete-request",
  "http-lock-list-response",
  "http-lock-verify-response"
] as const

export type LfsSchema = typeof schemaNames[number]

// The CommonJS module: its class is its default export.
const ajv = new AjvModule.default({ strict: false })
const validators = new Map(schemaNames.map((name) => {
  const text = readFileSync(new URL(`../fixtures/git-lfs-schemas/${name}-schema.json`, import.meta.url), "utf8")
  return [name, ajv.compile(JSON.parse(text))] as const
}))

/** Fails the test when `message` breaks the schema, naming what broke it. */
export const assertSchema = (name: LfsSchema, message: unknown): void => {
  const validate = validators.get(name)
  if (validate === undefined) throw new Error(`no schema ${name}`)
  const valid = validate(message)
  assert.isTrue(valid === true, `${name}: ${ajv.errorsText(validate.errors)} in ${JSON.stringify(message)}`)
}
