/** Bare e-mail addresses become `mailto:` links (Forgejo's `emailAddressProcessor` and `emailRegex`). */
import { link, space, splitAll, type TextProcessor } from "./TextProcessor.ts"

const emailPattern = new RegExp(
  `(?:${space}|^|\\(|\\[)([a-zA-Z0-9.!#$%&'*+\\/=?^_\`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?` +
    `(?:\\.[a-zA-Z0-9]{2,}(?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)+)(?:${space}|$|\\)|\\]|;|,|\\?|!|\\.(${space}|$))`
)

export const emailLinks: TextProcessor = (value) =>
  value.includes("@")
    ? splitAll(value, (text) => {
      const match = emailPattern.exec(text)
      const mail = match?.[1]
      if (match === null || mail === undefined) return undefined
      const start = match.index + match[0].indexOf(mail)
      return { start, end: start + mail.length, nodes: [link(`mailto:${mail}`, mail, "mailto")] }
    })
    : undefined
