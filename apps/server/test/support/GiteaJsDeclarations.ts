/**
 * What gitea-js declares, read from its type declarations (`dist/index.d.ts`): the operations of
 * its `Api` class (HTTP method, path template, declared answer type) and the fields of every
 * interface. TypeScript erases these types, so the client compatibility test reads them here to
 * check answers against them at run time. The declarations are generated (swagger-typescript-api)
 * and regular: members end with `;` at nesting depth 0, doc comments are `/** … *\/` blocks.
 */
import { readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"

/** A type as the declarations spell it, reduced to what has fields to check. */
export type DeclaredType =
  | { readonly _tag: "Named"; readonly name: string }
  | { readonly _tag: "Array"; readonly item: DeclaredType }
  | { readonly _tag: "Inline"; readonly fields: ReadonlyMap<string, DeclaredType> }
  | { readonly _tag: "Opaque"; readonly text: string }

export interface DeclaredOperation {
  /** The method's name in the client, e.g. `repoGet`. */
  readonly name: string
  readonly method: string
  /** As in `@request`, e.g. `/repos/{owner}/{repo}`. */
  readonly path: string
  readonly answer: DeclaredType
}

export interface GiteaJsDeclarations {
  readonly operations: ReadonlyArray<DeclaredOperation>
  readonly interfaces: ReadonlyMap<string, ReadonlyMap<string, DeclaredType>>
}

const withoutComments = (text: string): string => text.replace(/\/\*[\s\S]*?\*\//g, "")

/** Splits at `separator` where no bracket is open. */
const splitTopLevel = (text: string, separator: string): Array<string> => {
  const parts: Array<string> = []
  let depth = 0
  let start = 0
  for (let i = 0; i < text.length; i++) {
    const c = text[i]
    if (c === "{" || c === "<" || c === "(" || c === "[") depth++
    else if (c === "}" || c === ">" || c === ")" || c === "]") depth--
    else if (c === separator && depth === 0) {
      parts.push(text.slice(start, i))
      start = i + 1
    }
  }
  parts.push(text.slice(start))
  return parts.map((part) => part.trim()).filter((part) => part !== "")
}

const parseMembers = (body: string): Map<string, DeclaredType> => {
  const fields = new Map<string, DeclaredType>()
  for (const member of splitTopLevel(withoutComments(body), ";")) {
    const match = /^['"]?([\w-]+)['"]?\??\s*:\s*([\s\S]+)$/.exec(member)
    if (match?.[1] !== undefined && match[2] !== undefined) fields.set(match[1], parseType(match[2]))
  }
  return fields
}

export const parseType = (raw: string): DeclaredType => {
  const text = raw.trim()
  if (text.endsWith("[]")) return { _tag: "Array", item: parseType(text.slice(0, -2)) }
  if (text.startsWith("{") && text.endsWith("}")) return { _tag: "Inline", fields: parseMembers(text.slice(1, -1)) }
  if (/^[A-Z]\w*$/.test(text)) return { _tag: "Named", name: text }
  return { _tag: "Opaque", text }
}

const parseInterfaces = (source: string): Map<string, ReadonlyMap<string, DeclaredType>> => {
  const interfaces = new Map<string, ReadonlyMap<string, DeclaredType>>()
  for (const match of source.matchAll(/^interface (\w+) \{\n([\s\S]*?)\n\}$/gm)) {
    if (match[1] !== undefined && match[2] !== undefined) interfaces.set(match[1], parseMembers(match[2]))
  }
  return interfaces
}

const parseOperations = (source: string): Array<DeclaredOperation> => {
  const start = source.indexOf("declare class Api<")
  const api = source.slice(start)
  const operations: Array<DeclaredOperation> = []
  const requests = [...api.matchAll(/@request (\w+):(\S+)/g)]
  requests.forEach((request, index) => {
    const end = requests[index + 1]?.index ?? api.length
    const declaration = api.slice(request.index, end)
    const name = /\*\/\s*(\w+): \(/.exec(declaration)?.[1]
    const answer = /=> Promise<HttpResponse<([\s\S]*?), \w+>>;/.exec(declaration)?.[1]
    if (name === undefined || answer === undefined || request[1] === undefined || request[2] === undefined) {
      throw new Error(`gitea-js: cannot read the declaration after ${request[0]}`)
    }
    operations.push({ name, method: request[1], path: request[2], answer: parseType(withoutComments(answer)) })
  })
  return operations
}

export const readGiteaJsDeclarations = (): GiteaJsDeclarations => {
  const require = createRequire(import.meta.url)
  const source = readFileSync(join(dirname(require.resolve("gitea-js")), "index.d.ts"), "utf8")
  return { operations: parseOperations(source), interfaces: parseInterfaces(source) }
}

/** `/repos/{owner}/{repo}` → a pattern over concrete paths; one path segment per parameter. */
export const templatePattern = (template: string): RegExp =>
  new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{[^}]+\}/g, "[^/]+")}$`)

/**
 * The fields `declared` names that `value` lacks, as `Type.field`, at any depth (nested objects,
 * array items). Values of a declared type that are not objects (`null` included) are not
 * descended into.
 */
export const missingFields = (
  declarations: GiteaJsDeclarations,
  value: unknown,
  declared: DeclaredType,
  label = ""
): Set<string> => {
  const missing = new Set<string>()
  const visit = (current: unknown, type: DeclaredType, name: string): void => {
    switch (type._tag) {
      case "Opaque":
        return
      case "Array":
        if (Array.isArray(current)) for (const item of current) visit(item, type.item, name)
        return
      case "Named": {
        const fields = declarations.interfaces.get(type.name)
        if (fields !== undefined) visitFields(current, fields, type.name)
        return
      }
      case "Inline":
        visitFields(current, type.fields, name)
    }
  }
  const visitFields = (current: unknown, fields: ReadonlyMap<string, DeclaredType>, name: string) => {
    if (typeof current !== "object" || current === null || Array.isArray(current)) return
    const record = current as Record<string, unknown>
    for (const [field, type] of fields) {
      if (!(field in record)) missing.add(`${name}.${field}`)
      else visit(record[field], type, `${name}.${field}`)
    }
  }
  visit(value, declared, label)
  return missing
}
