/**
 * Domain errors as tagged data. Each carries the human text that Forgejo clients see;
 * the HTTP layer decides the status (the same error is 409 on one route and 422 on another).
 */
import { Schema } from "effect"

/** The named thing does not exist, or the caller may not know that it exists. */
export class NotFound extends Schema.TaggedError<NotFound>()("NotFound", {
  message: Schema.String
}) {}

/** A unique name (user, repository, token, group, ...) is taken. */
export class AlreadyExists extends Schema.TaggedError<AlreadyExists>()("AlreadyExists", {
  message: Schema.String
}) {}

/** Input breaks a domain rule. `field` names the offending field when there is one. */
export class Invalid extends Schema.TaggedError<Invalid>()("Invalid", {
  message: Schema.String,
  field: Schema.optional(Schema.String)
}) {}

/** The caller is known but may not do this. */
export class Forbidden extends Schema.TaggedError<Forbidden>()("Forbidden", {
  message: Schema.String
}) {}

/** The operation cannot proceed in the current state (e.g. deleting a user who still owns repositories). */
export class Conflict extends Schema.TaggedError<Conflict>()("Conflict", {
  message: Schema.String
}) {}
