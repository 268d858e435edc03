/**
 * effect's component schemas as Swagger `definitions`: translated once, renamed where Forgejo's names
 * differ, with every `$ref` pointed at `#/definitions/...`.
 */
import type { JsonSchema } from "effect"
import { isJsonObject, type SchemaContext, type SwaggerSchema, toSwaggerSchema } from "./SwaggerSchema.ts"

const componentsRef = /^#\/components\/schemas\/([^/]+)(.*)$/
/** A reference inside a JSON Schema document to its own `$defs`. */
export const defsRef = /^#\/\$defs\/([^/]+)(.*)$/

/**
 * effect's components under Swagger names. A class schema's JSON shape is named `<Identifier>Encoded`
 * (its type side being the class); Forgejo clients know it as `<Identifier>`, so the suffix is dropped
 * when that name is free.
 */
export class SwaggerDefinitions implements SchemaContext {
  private readonly source: JsonSchema.Definitions
  private readonly names = new Map<string, string>()
  private readonly hoisted: Record<string, SwaggerSchema> = {}
  private readonly translated: Record<string, SwaggerSchema> = {}

  constructor(source: JsonSchema.Definitions) {
    this.source = source
    const taken = new Set(Object.keys(source))
    for (const key of Object.keys(source)) {
      const bare = key.endsWith("Encoded") ? key.slice(0, -"Encoded".length) : key
      if (bare !== key && bare.length > 0 && !taken.has(bare)) {
        taken.add(bare)
        this.names.set(key, bare)
      }
    }
    for (const [key, schema] of Object.entries(source)) this.translated[this.nameOf(key)] = toSwaggerSchema(schema, this)
  }

  private nameOf(key: string): string {
    return this.names.get(key) ?? key
  }

  readonly rewriteRef = (ref: string): string => {
    const component = componentsRef.exec(ref)
    if (component !== null) return `#/definitions/${this.nameOf(component[1])}${component[2]}`
    const local = defsRef.exec(ref)
    if (local !== null) return `#/definitions/${local[1]}${local[2]}`
    return ref
  }

  readonly resolveRef = (ref: string): unknown => {
    const component = componentsRef.exec(ref)
    return component !== null && component[2] === "" ? this.source[component[1]] : ref
  }

  readonly hoistDefinition = (name: string, schema: SwaggerSchema): void => {
    if (!(name in this.hoisted)) this.hoisted[name] = schema
  }

  /** The Swagger definition a `#/definitions/X` reference points at. */
  lookup(ref: string): SwaggerSchema | undefined {
    const name = /^#\/definitions\/([^/]+)$/.exec(ref)?.[1]
    return name === undefined ? undefined : this.translated[name] ?? this.hoisted[name]
  }

  /** `schema` with references into these definitions followed (see `flattenSchema`). */
  flatten(schema: SwaggerSchema): SwaggerSchema {
    return flattenSchema(schema, (ref) => this.lookup(ref))
  }

  converted(): Record<string, SwaggerSchema> {
    return { ...this.hoisted, ...this.translated }
  }
}

/** Follows `$ref`s and single-member `allOf` wrappers to the keywords a simple parameter can carry. */
export const flattenSchema = (schema: SwaggerSchema, lookup: (ref: string) => SwaggerSchema | undefined, depth = 0): SwaggerSchema => {
  if (depth > 8) return schema
  if (typeof schema.$ref === "string") {
    const target = lookup(schema.$ref)
    return target === undefined ? {} : flattenSchema(target, lookup, depth + 1)
  }
  if (Array.isArray(schema.allOf) && schema.allOf.length === 1 && isJsonObject(schema.allOf[0])) {
    const { allOf: _, ...rest } = schema
    return { ...flattenSchema(schema.allOf[0], lookup, depth + 1), ...rest }
  }
  return schema
}
