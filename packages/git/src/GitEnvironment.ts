/**
 * The environment every git child process starts with: an allow-list of what git needs from the
 * server's environment, never the rest. The server's environment carries secrets (DATABASE_URL,
 * KILN_* settings), and a HOME with a `.netrc` or git config would hand a migration the server
 * user's credentials or settings; so HOME points where nothing can exist and no config is read
 * beyond the repository's own.
 */

/**
 * The settings every served git runs with, over either transport: partial clones (`--filter`) and
 * any object wanted, as Forgejo allows them. The capability advertisement depends on them, and is
 * kept for all transports alike (ProtocolV2Capabilities.ts).
 */
export const SERVED_GIT_SETTINGS: ReadonlyArray<string> = ["-c", "uploadpack.allowFilter=true", "-c", "uploadpack.allowAnySHA1InWant=true"]

/** Variables passed through when set: lookup of programs, locale data, time zone, temp files. */
const passedThrough = ["PATH", "LANG", "LANGUAGE", "TZ", "TMPDIR"] as const

/** A HOME under which no file can exist (`/dev/null` is not a directory), so no `~/.netrc` or `~/.gitconfig`. */
export const emptyHome = "/dev/null"

export const gitEnvironment = (
  extra: Readonly<Record<string, string | undefined>> = {},
  source: Readonly<Record<string, string | undefined>> = process.env
): Record<string, string> => {
  const environment: Record<string, string> = {}
  for (const name of passedThrough) {
    const value = source[name]
    if (value !== undefined) environment[name] = value
  }
  Object.assign(environment, {
    HOME: emptyHome,
    XDG_CONFIG_HOME: emptyHome,
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    // English messages: callers classify failures by their text.
    LC_ALL: "C"
  })
  for (const [name, value] of Object.entries(extra)) {
    if (value !== undefined) environment[name] = value
  }
  return environment
}
