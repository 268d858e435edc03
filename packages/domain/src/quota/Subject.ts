/**
 * Quota limit subjects: the spec's thirteen strings (and Forgejo's `size:assets:wiki`) and the tree of data they measure.
 * Each subject covers a set of usage leaves; the sets are nested or disjoint (a tree), and
 * `size:wiki` covers nothing because wiki size is not counted. Forgejo spells that subject
 * `size:assets:wiki`: both spellings are read, each kept as written, and they mean the same.
 */
import { Effect, Schema } from "effect"
import type { Invalid } from "../errors.ts"
import { unrecognizedSubject } from "./QuotaErrors.ts"
import type { UsageLeaf } from "./Usage.ts"

/** Every subject, in the order of the spec's table. */
export const subjects = [
  "size:all",
  "size:repos:all",
  "size:repos:public",
  "size:repos:private",
  "size:git:all",
  "size:git:lfs",
  "size:assets:all",
  "size:assets:attachments:all",
  "size:assets:attachments:issues",
  "size:assets:attachments:releases",
  "size:assets:artifacts",
  "size:assets:packages:all",
  "size:wiki",
  "size:assets:wiki"
] as const

export const Subject = Schema.Literals(subjects)
export type Subject = typeof Subject.Type

const reposAll: ReadonlyArray<UsageLeaf> = ["reposPublic", "reposPrivate"]
const attachmentsAll: ReadonlyArray<UsageLeaf> = ["attachmentsIssues", "attachmentsReleases"]
const assetsAll: ReadonlyArray<UsageLeaf> = [...attachmentsAll, "artifacts", "packages"]

// `size:all` is repositories + LFS + assets: every byte once (Forgejo adds repository bytes twice).
const leaves: { readonly [S in Subject]: ReadonlyArray<UsageLeaf> } = {
  "size:all": [...reposAll, "gitLfs", ...assetsAll],
  "size:repos:all": reposAll,
  "size:repos:public": ["reposPublic"],
  "size:repos:private": ["reposPrivate"],
  "size:git:all": [...reposAll, "gitLfs"],
  "size:git:lfs": ["gitLfs"],
  "size:assets:all": assetsAll,
  "size:assets:attachments:all": attachmentsAll,
  "size:assets:attachments:issues": ["attachmentsIssues"],
  "size:assets:attachments:releases": ["attachmentsReleases"],
  "size:assets:artifacts": ["artifacts"],
  "size:assets:packages:all": ["packages"],
  "size:wiki": [],
  "size:assets:wiki": []
}

/** The wiki subject in either spelling: it measures nothing and is never over quota. */
export const isWikiSubject = (subject: Subject): boolean => subject === "size:wiki" || subject === "size:assets:wiki"

/** The usage leaves a subject measures, without repeats. */
export const leavesOf = (subject: Subject): ReadonlyArray<UsageLeaf> => leaves[subject]

export const isSubject: (input: unknown) => input is Subject = Schema.is(Subject)

/**
 * Whether `outer` measures all the data `inner` measures: `size:all` covers `size:repos:public`,
 * every subject covers itself. `size:wiki` measures no data and is covered only by itself (in
 * either spelling).
 */
export const covers = (outer: Subject, inner: Subject): boolean => {
  if (outer === inner || (isWikiSubject(outer) && isWikiSubject(inner))) return true
  const innerLeaves = leavesOf(inner)
  const outerLeaves = leavesOf(outer)
  return innerLeaves.length > 0 && innerLeaves.every((leaf) => outerLeaves.includes(leaf))
}

/**
 * Whether two subjects measure some of the same data: one is the other, contains it, or is part of it.
 * Because the subjects form a tree this is `covers` in either direction.
 */
export const overlaps = (a: Subject, b: Subject): boolean => covers(a, b) || covers(b, a)

/** Reads a subject string from a rule body or a `subject` query value. */
export const parseSubject = (input: string): Effect.Effect<Subject, Invalid> =>
  isSubject(input) ? Effect.succeed(input) : Effect.fail(unrecognizedSubject(input))

/** Reads a list of subject strings; fails on the first unrecognized one. Order and repeats are kept. */
export const parseSubjects = (inputs: ReadonlyArray<string>): Effect.Effect<ReadonlyArray<Subject>, Invalid> =>
  Effect.forEach(inputs, parseSubject)
