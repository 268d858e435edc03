/**
 * The parts of a request target (`/path?query#fragment`) the router-wide checks read, without
 * throwing on any target Node accepts.
 *
 * The path is what `new URL(target, base).pathname` reads. Several router-wide checks ask for it
 * on every request (is this git's, LFS's, the health check's?), and parsing a URL each time was 3%
 * of the server's time under API load. A target made only of characters the URL parser leaves
 * alone, without dot segments, is its own path up to the query; anything else (percent escapes,
 * backslashes, `//`, `.` and `..` segments, non-ASCII) goes through the parser. A target the parser
 * refuses (`/\`, `//`, `//a:99999/x`: Node accepts them as request targets) is read as it came, up
 * to its query: it names no route of git, LFS or the health check (a check that threw on it
 * answered 500).
 */

const plainPath = /^\/(?![/\\])[A-Za-z0-9\-_~/.!$&'()*+,;=:@]*/
const dotSegment = /(?:^|\/)\.\.?(?:\/|$)/

export const pathnameOf = (target: string): string => {
  const plain = plainPath.exec(target)?.[0]
  if (plain !== undefined) {
    const next = target.charCodeAt(plain.length)
    // The path ends at the query or the fragment, or with the target.
    const whole = Number.isNaN(next) || next === 0x3f || next === 0x23
    if (whole && !dotSegment.test(plain)) return plain
  }
  try {
    return new URL(target, "http://internal").pathname
  } catch {
    return target.split(/[?#]/, 1)[0] ?? target
  }
}

/** The query of a request target, without its `?`; empty when it has none. */
export const queryOf = (target: string): string => {
  const question = target.indexOf("?")
  if (question < 0) return ""
  const hash = target.indexOf("#", question)
  return target.slice(question + 1, hash < 0 ? undefined : hash)
}

/**
 * `classify`, answering again from the last target it was asked about. The router-wide layers
 * ask the same question of one request's target in turn (five ask whether it is git's).
 */
export const forLastTarget = (classify: (target: string) => boolean): (target: string) => boolean => {
  let lastTarget: string | undefined
  let lastAnswer = false
  return (target) => {
    if (target !== lastTarget) {
      lastAnswer = classify(target)
      lastTarget = target
    }
    return lastAnswer
  }
}
