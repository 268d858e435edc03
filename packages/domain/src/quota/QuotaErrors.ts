/**
 * The quota errors with Forgejo's texts (models/quota/errors.go), so every adapter fails alike.
 * The HTTP layer picks the status per route: an unknown group is 404 on a path but 422 in a user's group list.
 */
import { AlreadyExists, Invalid, NotFound } from "../errors.ts"

export const unrecognizedSubject = (subject: string): Invalid =>
  new Invalid({ message: `unrecognized quota limit subject: [subject: ${subject}]` })

export const ruleNotFound = (rule: string): NotFound => new NotFound({ message: `rule not found: [name: ${rule}]` })

export const groupNotFound = (group: string): NotFound =>
  new NotFound({ message: `group not found: [group: ${group}]` })

/** An unknown name in a user's new group list is a validation failure, not a missing path. */
export const groupNotFoundInList = (group: string): Invalid =>
  new Invalid({ message: `group not found: [group: ${group}]`, field: "groups" })

export const ruleAlreadyExists = (rule: string): AlreadyExists =>
  new AlreadyExists({ message: `rule already exists: [name: ${rule}]` })

export const groupAlreadyExists = (group: string): AlreadyExists =>
  new AlreadyExists({ message: `group already exists: [name: ${group}]` })

export const userAlreadyInGroup = (group: string, userId: number): AlreadyExists =>
  new AlreadyExists({ message: `user already in group: [group: ${group}, userID: ${userId}]` })

export const userNotInGroup = (group: string, userId: number): NotFound =>
  new NotFound({ message: `user not in group: [group: ${group}, userID: ${userId}]` })

export const ruleAlreadyInGroup = (group: string, rule: string): AlreadyExists =>
  new AlreadyExists({ message: `rule already in group: [group: ${group}, rule: ${rule}]` })

export const ruleNotInGroup = (group: string, rule: string): NotFound =>
  new NotFound({ message: `rule not in group: [group: ${group}, rule: ${rule}]` })
