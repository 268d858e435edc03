/**
 * Every endpoint declares the token scope categories it needs (api-facts §0.3); the level
 * follows from the method (GET/HEAD read, anything else write). Declared on groups with
 * `.annotate(ScopeCategories, ["admin"])` (endpoints may add categories); checked for token callers by the authentication middleware.
 */
import { Context } from "effect"
import type { ScopeCategory } from "@kiln/domain/auth/AccessTokenScope"

export const ScopeCategories = Context.Reference<ReadonlyArray<ScopeCategory>>("@kiln/server/ScopeCategories", {
  defaultValue: () => []
})

export const levelOf = (method: string): "read" | "write" => method === "GET" || method === "HEAD" ? "read" : "write"
