/**
 * The command an SSH client asks Kiln to run (an `exec` request, or OpenSSH's
 * `SSH_ORIGINAL_COMMAND` for `kiln serv`), read as Forgejo's `serv` reads it (cmd/serv.go): the
 * words split as a POSIX shell would, the verb one of git's services (or `git-lfs-authenticate`),
 * the repository as `owner/repo`, with or without `.git` and a leading `/`. Nothing runs through
 * a shell: the words are only read.
 */

export type GitSshVerb = "git-upload-pack" | "git-receive-pack" | "git-upload-archive"

export type SshCommand =
  | { readonly _tag: "Git"; readonly verb: GitSshVerb; readonly owner: string; readonly repo: string }
  | {
    readonly _tag: "LfsAuthenticate"
    readonly owner: string
    readonly repo: string
    readonly operation: "upload" | "download"
  }

/** Why a command is refused: the one line the client sees (after `Kiln: `), as Forgejo words it. */
export interface SshCommandRefusal {
  readonly _tag: "Refused"
  readonly message: string
}

const refused = (message: string): SshCommandRefusal => ({ _tag: "Refused", message })

const gitVerbs: ReadonlySet<string> = new Set(["git-upload-pack", "git-receive-pack", "git-upload-archive"])

/** Longest command read; git's are far shorter. */
export const MAX_COMMAND_LENGTH = 4096

/**
 * The words of `command` as a POSIX shell splits them (single and double quotes, backslashes),
 * without expanding anything; undefined for an unterminated quote.
 */
export const shellWords = (command: string): ReadonlyArray<string> | undefined => {
  const words: Array<string> = []
  let word = ""
  let inWord = false
  let index = 0
  while (index < command.length) {
    const char = command.charAt(index)
    if (char === "'") {
      const end = command.indexOf("'", index + 1)
      if (end < 0) return undefined
      word += command.slice(index + 1, end)
      inWord = true
      index = end + 1
    } else if (char === "\"") {
      index += 1
      let closed = false
      while (index < command.length) {
        const inner = command.charAt(index)
        if (inner === "\"") {
          closed = true
          index += 1
          break
        }
        if (inner === "\\" && index + 1 < command.length && "$`\"\\\n".includes(command.charAt(index + 1))) {
          word += command.charAt(index + 1)
          index += 2
        } else {
          word += inner
          index += 1
        }
      }
      if (!closed) return undefined
      inWord = true
    } else if (char === "\\") {
      if (index + 1 < command.length) word += command.charAt(index + 1)
      inWord = true
      index += 2
    } else if (char === " " || char === "\t" || char === "\n") {
      if (inWord) words.push(word)
      word = ""
      inWord = false
      index += 1
    } else {
      word += char
      inWord = true
      index += 1
    }
  }
  if (inWord) words.push(word)
  return words
}

// Forgejo refuses repository names with anything but these (alphaDashDotPattern).
const invalidName = /[^\w\-.]/

export const parseSshCommand = (command: string): SshCommand | SshCommandRefusal => {
  if (command.length > MAX_COMMAND_LENGTH) return refused("Too long command")
  const words = shellWords(command)
  if (words === undefined) return refused("Invalid command")
  if (words.length < 2) return refused("Too few arguments")
  const [verb = "", rawPath = ""] = words
  const isLfs = verb === "git-lfs-authenticate"
  if (!isLfs && !gitVerbs.has(verb)) return refused("Unknown git command")
  const path = rawPath.startsWith("/") ? rawPath.slice(1) : rawPath
  const slash = path.indexOf("/")
  if (slash < 0 || path.indexOf("/", slash + 1) >= 0) return refused("Invalid repository path")
  const owner = path.slice(0, slash)
  const repo = path.slice(slash + 1).replace(/\.git$/, "")
  const badName = (name: string) => name === "" || name === "." || name === ".." || invalidName.test(name)
  if (badName(owner) || badName(repo)) return refused("Invalid repo name")
  if (isLfs) {
    const operation = words[2]
    if (operation !== "upload" && operation !== "download") return refused("Unknown LFS operation")
    return { _tag: "LfsAuthenticate", owner, repo, operation }
  }
  if (words.length > 2) return refused("Too many arguments")
  return { _tag: "Git", verb: verb as GitSshVerb, owner, repo }
}
