import SwaggerParser from "@apidevtools/swagger-parser"
import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import { type SchemaContext, type SwaggerSchema, toSwaggerSchema } from "../../src/http/swagger/SwaggerSchema.ts"
import { foreignKeywordPaths } from "./ForeignKeywords.ts"

/** Source definitions as effect emits them (`#/$defs/...` inside schemas, `#/components/...` from OpenAPI). */
const sourceDefinitions: Record<string, unknown> = {
  Error: { type: "object", properties: { message: { type: "string" }, url: { type: "string" } } },
  Forbidden: { type: "object", properties: { message: { type: "string" }, url: { type: "string" } } },
  Name: { type: "string" }
}

const makeContext = () => {
  const hoisted: Record<string, SwaggerSchema> = {}
  const context: SchemaContext = {
    rewriteRef: (ref) => ref.replace(/^#\/(\$defs|components\/schemas)\//, "#/definitions/"),
    resolveRef: (ref) => sourceDefinitions[ref.replace(/^#\/(\$defs|components\/schemas)\//, "")] ?? ref,
    hoistDefinition: (name, schema) => {
      hoisted[name] = schema
    }
  }
  return { context, hoisted }
}

const translate = (schema: unknown) => toSwaggerSchema(schema, makeContext().context)

describe("toSwaggerSchema", () => {
  it("turns const into a one-value enum and a null const into x-nullable", () => {
    assert.deepStrictEqual(translate({ type: "string", const: "user" }), { type: "string", enum: ["user"] })
    assert.deepStrictEqual(translate({ const: null }), { "x-nullable": true })
  })

  it("turns null alternatives and type arrays into x-nullable", () => {
    assert.deepStrictEqual(translate({ anyOf: [{ type: "string" }, { type: "null" }] }), {
      type: "string",
      "x-nullable": true
    })
    assert.deepStrictEqual(translate({ type: ["integer", "null"] }), { type: "integer", "x-nullable": true })
    assert.deepStrictEqual(translate({ type: "string", enum: ["a", null] }), {
      type: "string",
      enum: ["a"],
      "x-nullable": true
    })
  })

  it("wraps a reference that gains keywords in allOf, since Swagger ignores $ref siblings", () => {
    assert.deepStrictEqual(translate({ anyOf: [{ $ref: "#/components/schemas/Error" }, { type: "null" }] }), {
      allOf: [{ $ref: "#/definitions/Error" }],
      "x-nullable": true
    })
    assert.deepStrictEqual(translate({ $ref: "#/$defs/Name", description: "login" }), {
      allOf: [{ $ref: "#/definitions/Name" }],
      description: "login"
    })
    assert.deepStrictEqual(translate({ $ref: "#/$defs/Name" }), { $ref: "#/definitions/Name" })
  })

  it("hoists nested $defs into definitions and rewrites the references to them", () => {
    const { context, hoisted } = makeContext()
    const schema = toSwaggerSchema({
      $defs: { Tree: { type: "object", properties: { children: { type: "array", items: { $ref: "#/$defs/Tree" } } } } },
      $ref: "#/$defs/Tree"
    }, context)
    assert.deepStrictEqual(schema, { $ref: "#/definitions/Tree" })
    assert.deepStrictEqual(hoisted.Tree, {
      type: "object",
      properties: { children: { type: "array", items: { $ref: "#/definitions/Tree" } } }
    })
  })

  it("turns tuples into arrays of their common element, or of anything", () => {
    assert.deepStrictEqual(
      translate({ type: "array", prefixItems: [{ type: "string" }, { type: "string" }], minItems: 2, maxItems: 2 }),
      { type: "array", minItems: 2, maxItems: 2, items: { type: "string" } }
    )
    assert.deepStrictEqual(translate({ type: "array", prefixItems: [{ type: "string" }], items: { type: "number" } }), {
      type: "array",
      items: {}
    })
    assert.deepStrictEqual(translate({ type: "array" }), { type: "array", items: {} })
  })

  it("keeps the first of examples as example", () => {
    assert.deepStrictEqual(translate({ type: "string", examples: ["octocat", "x"] }), { type: "string", example: "octocat" })
  })

  it("turns numeric exclusive bounds into draft-04 flags, keeping the tighter bound", () => {
    assert.deepStrictEqual(translate({ type: "number", exclusiveMinimum: 0, exclusiveMaximum: 10 }), {
      type: "number",
      minimum: 0,
      exclusiveMinimum: true,
      maximum: 10,
      exclusiveMaximum: true
    })
    assert.deepStrictEqual(translate({ type: "number", minimum: 5, exclusiveMinimum: 0 }), { type: "number", minimum: 5 })
  })

  it("describes effect's safe-integer bounds as int64 and drops its non-finite number strings", () => {
    assert.deepStrictEqual(
      translate({ type: "integer", minimum: Number.MIN_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER }),
      { type: "integer", format: "int64" }
    )
    assert.deepStrictEqual(
      translate({ anyOf: [{ type: "number" }, { type: "string", enum: ["Infinity", "-Infinity", "NaN"] }] }),
      { type: "number" }
    )
  })

  it("merges scalar alternatives, collapses references to equal shapes, keeps the rest in x-anyOf", () => {
    assert.deepStrictEqual(translate({ anyOf: [{ type: "string", enum: ["a"] }, { type: "string", enum: ["b"] }] }), {
      type: "string",
      enum: ["a", "b"]
    })
    assert.deepStrictEqual(translate({ anyOf: [{ type: "integer" }, { type: "number" }] }), { type: "number" })
    assert.deepStrictEqual(
      translate({ anyOf: [{ $ref: "#/components/schemas/Error" }, { $ref: "#/components/schemas/Forbidden" }] }),
      { $ref: "#/definitions/Error" }
    )
    assert.deepStrictEqual(translate({ oneOf: [{ type: "string" }, { type: "object", properties: {} }] }), {
      "x-anyOf": [{ type: "string" }, { type: "object", properties: {} }]
    })
  })

  it("translates records with constrained keys to additionalProperties", () => {
    assert.deepStrictEqual(
      translate({ type: "object", patternProperties: { "^[a-z]+$": { type: "integer" } }, propertyNames: { pattern: "x" } }),
      { type: "object", additionalProperties: { type: "integer" } }
    )
  })
})

// ---------------------------------------------------------------------------------------------------------

const jsonValue = fc.oneof(fc.string({ maxLength: 4 }), fc.integer(), fc.boolean(), fc.constant(null))
const typeName = fc.constantFrom("string", "number", "integer", "boolean", "null", "object", "array")

/** Arbitrary JSON Schema 2020-12 built from the keywords effect's generator and hand-written schemas use. */
const { schema: jsonSchema } = fc.letrec<{ schema: unknown }>((tie) => ({
  schema: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.record({ type: typeName }),
    fc.record({ type: fc.uniqueArray(typeName, { minLength: 1, maxLength: 3 }) }),
    fc.record({ const: jsonValue }),
    fc.record({ enum: fc.array(jsonValue, { minLength: 1, maxLength: 3 }) }),
    fc.record({ $ref: fc.constantFrom("#/$defs/Name", "#/components/schemas/Error") }),
    fc.record({ type: fc.constant("string"), examples: fc.array(fc.string(), { maxLength: 2 }) }),
    fc.record({ type: fc.constant("number"), exclusiveMinimum: fc.integer(), exclusiveMaximum: fc.integer() }),
    fc.record({ anyOf: fc.array(tie("schema"), { minLength: 1, maxLength: 3 }) }),
    fc.record({ oneOf: fc.array(tie("schema"), { minLength: 1, maxLength: 3 }) }),
    fc.record({ allOf: fc.array(tie("schema"), { minLength: 1, maxLength: 2 }) }),
    fc.record({
      type: fc.constant("object"),
      properties: fc.dictionary(fc.constantFrom("a", "b", "c"), tie("schema"), { maxKeys: 3 }),
      required: fc.subarray(["a", "b", "c", "d"]),
      additionalProperties: fc.oneof(fc.boolean(), tie("schema"))
    }),
    fc.record({
      type: fc.constant("array"),
      prefixItems: fc.array(tie("schema"), { maxLength: 2 }),
      items: tie("schema")
    }),
    fc.record({ $defs: fc.record({ Nested: tie("schema") }), $ref: fc.constant("#/$defs/Nested") })
  )
}))

describe("toSwaggerSchema on arbitrary JSON Schema 2020-12", () => {
  // One validator call costs ~50 ms, so each run checks a batch of schemas in one document.
  it("always yields Swagger 2.0 vocabulary that the validator accepts", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(jsonSchema, { minLength: 1, maxLength: 16 }), async (sources) => {
        const { context, hoisted } = makeContext()
        const subjects = Object.fromEntries(sources.map((source, i) => [`Subject${i}`, toSwaggerSchema(source, context)]))
        const definitions = { Name: { type: "string" }, Error: { type: "object" }, ...hoisted, ...subjects }
        assert.deepStrictEqual(foreignKeywordPaths({ definitions }), [])
        const operations = Object.fromEntries(Object.entries(subjects).map(([name, schema]) => [`/${name}`, {
          post: {
            parameters: [{ name: "body", in: "body", schema }],
            responses: { "200": { description: "ok", schema: { $ref: `#/definitions/${name}` } } }
          }
        }]))
        // Boundary: the validator's input type is openapi-types' OpenAPI.Document; this literal is one.
        const document = { swagger: "2.0", info: { title: "t", version: "1" }, paths: operations, definitions } as unknown as Parameters<
          typeof SwaggerParser.validate
        >[0]
        await SwaggerParser.validate(document)
      }),
      { numRuns: 25 }
    )
  })
})
