/**
 * Forgejo's math (`modules/markup/markdown/math/`), rendered for the browser to typeset as
 * Forgejo's server does (no KaTeX here):
 * - inline `$…$` and `\(…\)` → `<code class="language-math is-loading">`, `$$…$$` inside a line →
 *   `<code class="language-math display is-loading">`. The opener may not follow an ASCII letter,
 *   digit or `.!?,;:`; the first closer on the line must be followed by the end of the line, a
 *   space, `.!?,;:` or `)`, else there is no math; a closer after `\` is skipped. One space each
 *   side is trimmed when both are there.
 * - a line that is `$$…$$` or `\[…\]` (then only spaces) → `<pre class="code-block is-loading">
 *   <code class="chroma language-math display">…</code></pre>`. Forgejo opens no block whose
 *   closer is on a later line; such a `$$` is inline math as above.
 */
import type { Element } from "hast"
import type { Literal } from "mdast"
import type { CompileContext, Extension as FromMarkdownExtension, Token } from "mdast-util-from-markdown"
import type { State as HastState } from "mdast-util-to-hast"
import type { Code, Construct, Effects, Extension, State, TokenizeContext } from "micromark-util-types"

export interface ForgejoInlineMath extends Literal {
  type: "forgejoInlineMath"
  display: boolean
}

export interface ForgejoMath extends Literal {
  type: "forgejoMath"
}

declare module "mdast" {
  interface PhrasingContentMap {
    forgejoInlineMath: ForgejoInlineMath
  }
  interface BlockContentMap {
    forgejoMath: ForgejoMath
  }
  interface RootContentMap {
    forgejoInlineMath: ForgejoInlineMath
    forgejoMath: ForgejoMath
  }
}

declare module "micromark-util-types" {
  interface TokenTypeMap {
    forgejoMathSingle: "forgejoMathSingle"
    forgejoMathDual: "forgejoMathDual"
    forgejoMathBracket: "forgejoMathBracket"
    forgejoMathFlow: "forgejoMathFlow"
  }
}

const dollar = 36
const backslash = 92
const space = 32

const isLineEnd = (code: Code): boolean => code === null || code < -2
const isAsciiAlphanumeric = (code: Code): boolean =>
  code !== null && ((code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122))
/** Forgejo's `isPunctuation`. */
const isStop = (code: Code): boolean => code === 46 || code === 33 || code === 63 || code === 44 || code === 59 || code === 58

interface InlineKind {
  readonly type: "forgejoMathSingle" | "forgejoMathDual" | "forgejoMathBracket"
  readonly open: ReadonlyArray<number>
  readonly close: ReadonlyArray<number>
}

const single: InlineKind = { type: "forgejoMathSingle", open: [dollar], close: [dollar] }
const dual: InlineKind = { type: "forgejoMathDual", open: [dollar, dollar], close: [dollar, dollar] }
const bracket: InlineKind = { type: "forgejoMathBracket", open: [backslash, 40], close: [backslash, 41] }

const inlineConstruct = (kind: InlineKind): Construct => ({
  name: kind.type,
  tokenize(this: TokenizeContext, effects: Effects, ok: State, nok: State): State {
    const previous = this.previous
    /** The code before the closer candidate, to tell an escaped closer (Go's `line[ender-1]`). */
    let last: Code = kind.open[kind.open.length - 1] ?? null
    const [first, second] = kind.close

    const opener = (index: number): State => (code) => {
      if (code !== kind.open[index]) return nok(code)
      effects.consume(code)
      return index + 1 < kind.open.length ? opener(index + 1) : data
    }
    const data: State = (code) => {
      if (isLineEnd(code)) return nok(code)
      if (code === first) {
        effects.consume(code)
        return second === undefined ? afterCloser : afterFirst
      }
      last = code
      effects.consume(code)
      return data
    }
    const afterFirst: State = (code) => {
      if (code === second) {
        effects.consume(code)
        return afterCloser
      }
      // The first closer character was content after all.
      last = first ?? null
      return data(code)
    }
    const afterCloser: State = (code) => {
      if (code === null) return done(code)
      if (!(code < -2 || code === space || isStop(code) || code === 41)) return nok(code)
      if (last !== backslash) return done(code)
      last = second ?? first ?? null
      return data(code)
    }
    const done: State = (code) => {
      effects.exit(kind.type)
      return ok(code)
    }

    return (code) => {
      if (isAsciiAlphanumeric(previous) || isStop(previous)) return nok(code)
      effects.enter(kind.type)
      return opener(0)(code)
    }
  }
})

const flowConstruct: Construct = {
  name: "forgejoMathFlow",
  tokenize(effects, ok, nok) {
    let closer: readonly [number, number] = [dollar, dollar]

    const open: State = (code) => {
      if (code === dollar) closer = [dollar, dollar]
      else if (code === backslash) closer = [backslash, 93]
      else return nok(code)
      effects.enter("forgejoMathFlow")
      effects.consume(code)
      return openSecond
    }
    const openSecond: State = (code) => {
      if (code !== (closer[0] === dollar ? dollar : 91)) return nok(code)
      effects.consume(code)
      return data
    }
    const data: State = (code) => {
      if (isLineEnd(code)) return nok(code)
      effects.consume(code)
      return code === closer[0] ? afterFirst : data
    }
    const afterFirst: State = (code) => {
      if (code !== closer[1]) return data(code)
      effects.consume(code)
      return trailing
    }
    const trailing: State = (code) => {
      if (isLineEnd(code)) {
        effects.exit("forgejoMathFlow")
        return ok(code)
      }
      if (code !== space) return nok(code)
      effects.consume(code)
      return trailing
    }
    return open
  }
}

/** The micromark syntax: `$$` is tried before `$`, as goldmark's parser priorities have it. */
export const forgejoMathSyntax: Extension = {
  flow: { [dollar]: flowConstruct, [backslash]: flowConstruct },
  text: { [dollar]: [inlineConstruct(dual), inlineConstruct(single)], [backslash]: inlineConstruct(bracket) }
}

/** Forgejo's `trimBlock`: one space off each end when both ends have one. */
const trimInline = (value: string): string =>
  value.trim() !== "" && value.startsWith(" ") && value.endsWith(" ") ? value.slice(1, -1) : value

function enterInline(this: CompileContext, token: Token): void {
  const raw = this.sliceSerialize(token)
  const display = token.type === "forgejoMathDual"
  const value = trimInline(raw.slice(token.type === "forgejoMathSingle" ? 1 : 2, token.type === "forgejoMathSingle" ? -1 : -2))
  this.enter({ type: "forgejoInlineMath", value, display }, token)
}

function exitAny(this: CompileContext, token: Token): void {
  this.exit(token)
}

function enterFlow(this: CompileContext, token: Token): void {
  const raw = this.sliceSerialize(token)
  const end = raw.indexOf(raw.startsWith("$") ? "$$" : "\\]", 2)
  this.enter({ type: "forgejoMath", value: raw.slice(2, end) }, token)
}

export const forgejoMathFromMarkdown: FromMarkdownExtension = {
  enter: { forgejoMathSingle: enterInline, forgejoMathDual: enterInline, forgejoMathBracket: enterInline, forgejoMathFlow: enterFlow },
  exit: { forgejoMathSingle: exitAny, forgejoMathDual: exitAny, forgejoMathBracket: exitAny, forgejoMathFlow: exitAny }
}

const code = (className: Array<string>, value: string): Element => ({
  type: "element",
  tagName: "code",
  properties: { className },
  children: [{ type: "text", value }]
})

export const inlineMathHandler = (state: HastState, node: ForgejoInlineMath): Element => {
  const element = code(["language-math", ...(node.display ? ["display"] : []), "is-loading"], node.value)
  state.patch(node, element)
  return element
}

export const mathHandler = (state: HastState, node: ForgejoMath): Element => {
  const element: Element = {
    type: "element",
    tagName: "pre",
    properties: { className: ["code-block", "is-loading"] },
    children: [code(["chroma", "language-math", "display"], node.value)]
  }
  state.patch(node, element)
  return element
}
