/**
 * gobwas/glob matching without separators, as Forgejo matches webhook branch filters, host
 * patterns and unadopted `owner/name` patterns: `*` (and `**`) any run of characters, `?` one
 * character, `[abc]`, `[a-z]`, `[!...]`, `{a,b}` alternatives (nested), `\` escapes the next
 * character. [services/webhook/webhook.go checkBranch, services/repository/adopt.go]
 *
 * A pattern is compiled to a small automaton (one state per literal, class, `?` and `*`, one per
 * alternative set) and matched by keeping the set of states alive after each character, as
 * gobwas does not backtrack either: time is O(pattern × name) whatever both contain, where a
 * regular expression (`*a*a*a*…b`) took minutes on a 64-character name.
 */
import { globPatternError } from "../org/GlobPattern.ts"

/**
 * Longest pattern a caller or an operator may give (branch filter, unadopted pattern, host and
 * origin globs), in characters: matching costs pattern × name, so both are bounded.
 */
export const MAX_GLOB_LENGTH = 256

/** Why `pattern` is too long to be accepted, or undefined. */
export const globLengthError = (pattern: string): string | undefined =>
  [...pattern].length > MAX_GLOB_LENGTH ? `pattern is longer than ${MAX_GLOB_LENGTH} characters` : undefined

type Node =
  | { readonly kind: "char"; readonly test: (codePoint: number) => boolean }
  | { readonly kind: "star" }
  | { readonly kind: "anyOf"; readonly alternatives: ReadonlyArray<ReadonlyArray<Node>> }

const literal = (codePoint: number): Node => ({ kind: "char", test: (c) => c === codePoint })
const anyChar: Node = { kind: "char", test: () => true }

/** Parses a pattern gobwas compiles (globPatternError says so) into a sequence of nodes. */
const parse = (pattern: string): ReadonlyArray<Node> => {
  const chars = [...pattern]
  let pos = 0

  /** `[...]` after its `[`: one `lo-hi` range or a list of characters, maybe negated with `!`. */
  const parseClass = (): Node => {
    let negated = false
    if (chars[pos] === "!") {
      negated = true
      pos++
    }
    let test: (codePoint: number) => boolean
    if (chars[pos + 1] === "-") {
      const lo = chars[pos]?.codePointAt(0) ?? 0
      const hi = chars[pos + 2]?.codePointAt(0) ?? 0
      pos += 3
      test = (c) => c >= lo && c <= hi
    } else {
      const members = new Set<number>()
      while (pos < chars.length && chars[pos] !== "]") {
        if (chars[pos] === "\\") pos++
        const member = chars[pos++]
        if (member !== undefined) members.add(member.codePointAt(0) ?? 0)
      }
      test = (c) => members.has(c)
    }
    pos++ // the closing `]`
    return { kind: "char", test: negated ? (c) => !test(c) : test }
  }

  /** Nodes up to the end, or (inside braces) up to the `,` or `}` that ends this alternative. */
  const parseSequence = (inTerms: boolean): Array<Node> => {
    const nodes: Array<Node> = []
    while (pos < chars.length) {
      const c = chars[pos] ?? ""
      if (inTerms && (c === "," || c === "}")) break
      pos++
      if (c === "*") {
        // `**` is `*` without separators; one state stands for a run of them.
        if (nodes.at(-1)?.kind !== "star") nodes.push({ kind: "star" })
      } else if (c === "?") {
        nodes.push(anyChar)
      } else if (c === "[") {
        nodes.push(parseClass())
      } else if (c === "{") {
        const alternatives: Array<ReadonlyArray<Node>> = []
        for (;;) {
          alternatives.push(parseSequence(true))
          const end = chars[pos++]
          // An unclosed brace ends with the pattern, as gobwas's parser lets it.
          if (end !== ",") break
        }
        nodes.push({ kind: "anyOf", alternatives })
      } else if (c === "\\") {
        const escaped = chars[pos++]
        if (escaped !== undefined) nodes.push(literal(escaped.codePointAt(0) ?? 0))
      } else {
        nodes.push(literal(c.codePointAt(0) ?? 0))
      }
    }
    return nodes
  }

  return parseSequence(false)
}

/** States of the automaton; `next` are the states reached after (char) or without (split) a character. */
type State =
  | { readonly kind: "char"; readonly test: (codePoint: number) => boolean; readonly next: number }
  | { readonly kind: "star"; readonly next: number }
  | { readonly kind: "split"; readonly next: ReadonlyArray<number> }
  | { readonly kind: "match" }

const MATCH = 0

/** The automaton of `nodes`, built back to front so every state knows what follows it. */
const build = (nodes: ReadonlyArray<Node>) => {
  const states: Array<State> = [{ kind: "match" }]
  const add = (state: State) => states.push(state) - 1
  const sequence = (sequenceNodes: ReadonlyArray<Node>, next: number): number => {
    let entry = next
    for (let i = sequenceNodes.length - 1; i >= 0; i--) {
      const node = sequenceNodes[i]
      if (node === undefined) continue
      if (node.kind === "char") entry = add({ kind: "char", test: node.test, next: entry })
      else if (node.kind === "star") entry = add({ kind: "star", next: entry })
      else {
        const follow = entry
        entry = add({ kind: "split", next: node.alternatives.map((alternative) => sequence(alternative, follow)) })
      }
    }
    return entry
  }
  return { states, start: sequence(nodes, MATCH) }
}

export type NameMatcher = (name: string) => boolean

/** A matcher for `pattern`, or undefined when gobwas would not compile it. */
export const compileNameGlob = (pattern: string): NameMatcher | undefined => {
  if (globPatternError(pattern) !== undefined) return undefined
  const { states, start } = build(parse(pattern))
  return (name) => {
    // `seen[s] === generation`: state s is in the set being built.
    const seen = new Int32Array(states.length)
    let generation = 1
    let current: Array<number> = []
    let following: Array<number> = []
    const stack: Array<number> = []
    /** Adds `state` and every state reached from it without a character. */
    const enter = (state: number, into: Array<number>) => {
      stack.push(state)
      while (stack.length > 0) {
        const s = stack.pop() ?? MATCH
        if (seen[s] === generation) continue
        seen[s] = generation
        const entered = states[s]
        if (entered === undefined) continue
        if (entered.kind === "split") stack.push(...entered.next)
        else {
          into.push(s)
          if (entered.kind === "star") stack.push(entered.next)
        }
      }
    }
    enter(start, current)
    for (const character of name) {
      const codePoint = character.codePointAt(0) ?? 0
      generation++
      following.length = 0
      for (const s of current) {
        const state = states[s]
        if (state?.kind === "char" && state.test(codePoint)) enter(state.next, following)
        else if (state?.kind === "star") enter(s, following)
      }
      if (following.length === 0) return false
      ;[current, following] = [following, current]
    }
    return current.includes(MATCH)
  }
}

/**
 * A matcher for an unadopted-repositories pattern: one gobwas would not compile is skipped
 * (matches everything), as Forgejo logs and skips it.
 */
export const nameGlob = (pattern: string): NameMatcher => compileNameGlob(pattern) ?? (() => true)

/** `text` with every glob syntax character escaped: a pattern that matches exactly `text`. */
export const quoteGlob = (text: string): string => text.replace(/[\\*?[\]{},]/g, "\\$&")
