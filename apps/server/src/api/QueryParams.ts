/**
 * Query values Forgejo reads leniently (`ctx.FormInt`): declared as integers in the API
 * description, read as text so that a bad value means "unset" instead of a 422.
 */
import { Schema } from "effect"

export const IntQuery = Schema.String.annotate({ format: "int64", description: "integer" })

export const PagingQuery = {
  page: Schema.optional(IntQuery.annotate({ description: "page number of results to return (1-based)" })),
  limit: Schema.optional(IntQuery.annotate({ description: "page size of results" }))
}
