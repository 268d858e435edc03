/**
 * Security schemes under the names Forgejo's Swagger file uses, so generated clients (go-sdk, tea,
 * swagger-codegen) keep their option names. Swagger 2.0 has no bearer scheme: every `Authorization`
 * header token is the `AuthorizationHeaderToken` API key, whatever word precedes it.
 */
import type { OpenApi } from "effect/http-api"
import { isSameJson } from "./SwaggerSchema.ts"

/** A Swagger 2.0 Security Scheme Object (the kinds Kiln uses: basic and API keys). */
export interface SwaggerSecurityScheme {
  readonly type: "basic" | "apiKey"
  readonly name?: string
  readonly in?: "header" | "query"
  readonly description?: string
}

/** A Swagger 2.0 Security Requirement: scheme name to scopes (always empty for these schemes). */
export type SwaggerSecurityRequirement = Record<string, Array<string>>

const sudoDescription = "Sudo API request as the user provided as the key. Admin privileges are required."

/**
 * The security definitions of Forgejo's own Swagger file, for schemes Kiln honours outside an
 * `HttpApiSecurity` (sudo and TOTP are read by the authentication code, not declared as schemes).
 * Forgejo once also listed `AccessToken` (`?access_token=`) and `Token` (`?token=`); this version accepts
 * neither, so they are only named when an API declares such a query key.
 */
export const forgejoSecurityDefinitions: Readonly<Record<string, SwaggerSecurityScheme>> = {
  AuthorizationHeaderToken: {
    description: "API tokens must be prepended with \"token\" followed by a space.",
    type: "apiKey",
    name: "Authorization",
    in: "header"
  },
  BasicAuth: { type: "basic" },
  SudoHeader: { description: sudoDescription, type: "apiKey", name: "Sudo", in: "header" },
  SudoParam: { description: sudoDescription, type: "apiKey", name: "sudo", in: "query" },
  TOTPHeader: {
    description: "Must be used in combination with BasicAuth if two-factor authentication is enabled.",
    type: "apiKey",
    name: "X-FORGEJO-OTP",
    in: "header"
  }
}

/** Forgejo's global requirement: any one of its schemes. */
export const forgejoSecurity: ReadonlyArray<SwaggerSecurityRequirement> = [
  { BasicAuth: [] },
  { AuthorizationHeaderToken: [] },
  { SudoParam: [] },
  { SudoHeader: [] },
  { TOTPHeader: [] }
]

const forgejoApiKeyNames: ReadonlyArray<{ readonly in: "header" | "query"; readonly key: string; readonly name: string }> = [
  { in: "header", key: "authorization", name: "AuthorizationHeaderToken" },
  { in: "header", key: "sudo", name: "SudoHeader" },
  { in: "query", key: "sudo", name: "SudoParam" },
  { in: "header", key: "x-forgejo-otp", name: "TOTPHeader" },
  { in: "query", key: "access_token", name: "AccessToken" },
  { in: "query", key: "token", name: "Token" }
]

/** A scheme translated to Swagger 2.0, under the name it is published as. */
export interface NamedSecurityScheme {
  readonly name: string
  readonly scheme: SwaggerSecurityScheme
}

const withDescription = (scheme: SwaggerSecurityScheme, description: string | undefined): SwaggerSecurityScheme =>
  description === undefined ? scheme : { ...scheme, description }

/**
 * Translates one of effect's OpenAPI security schemes, declared under `key` in an `HttpApiMiddleware`.
 * Returns `undefined` for cookie API keys, which Swagger 2.0 cannot express.
 */
export const toSwaggerSecurity = (key: string, scheme: OpenApi.OpenAPISecurityScheme): NamedSecurityScheme | undefined => {
  if (scheme.type === "http") {
    if (scheme.scheme.toLowerCase() === "basic") {
      return { name: "BasicAuth", scheme: withDescription({ type: "basic" }, scheme.description) }
    }
    const forgejo = forgejoSecurityDefinitions.AuthorizationHeaderToken
    return { name: "AuthorizationHeaderToken", scheme: withDescription(forgejo, scheme.description) }
  }
  if (scheme.in === "cookie") return undefined
  const location = scheme.in
  const known = forgejoApiKeyNames.find((entry) => entry.in === location && entry.key === scheme.name.toLowerCase())
  const name = known?.name ?? key
  const base = forgejoSecurityDefinitions[name] ?? { type: "apiKey", name: scheme.name, in: location }
  return { name, scheme: withDescription(base, scheme.description) }
}

/** The schemes of effect's OpenAPI output under Swagger names, and the name each effect key became. */
export const securityFromOpenApi = (schemes: Record<string, OpenApi.OpenAPISecurityScheme>) => {
  const definitions: Record<string, SwaggerSecurityScheme> = {}
  const names = new Map<string, string>()
  for (const [key, scheme] of Object.entries(schemes)) {
    const named = toSwaggerSecurity(key, scheme)
    if (named === undefined) continue
    names.set(key, named.name)
    definitions[named.name] ??= named.scheme
  }
  return { definitions, names }
}

/** Requirements renamed; one naming a scheme Swagger cannot express (a cookie) is left out. */
export const requirementsFromOpenApi = (
  requirements: ReadonlyArray<OpenApi.OpenAPISecurityRequirement>,
  names: ReadonlyMap<string, string>
): Array<SwaggerSecurityRequirement> => {
  const out: Array<SwaggerSecurityRequirement> = []
  for (const requirement of requirements) {
    const translated: SwaggerSecurityRequirement = {}
    let expressible = true
    for (const [key, scopes] of Object.entries(requirement)) {
      const name = names.get(key)
      if (name === undefined) expressible = false
      else translated[name] = [...scopes]
    }
    if (expressible && !out.some((seen) => isSameJson(seen, translated))) out.push(translated)
  }
  return out
}
