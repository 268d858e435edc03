/**
 * `kiln keys`: the `authorized_keys` line OpenSSH's AuthorizedKeysCommand asks for (Forgejo's
 * `forgejo keys`, cmd/keys.go and models/asymkey's authorized-keys template): for a stored key, the
 * key with a forced `kiln serv key-<id>` and every forwarding and the pty turned off; for an
 * unknown key, or a user other than the expected one, nothing.
 */
import { isAbsolute, resolve } from "node:path"
import { Effect, Option } from "effect"
import { SshIdentities } from "@kiln/domain/ssh/SshIdentities"
import { parseSshPublicKey, sshFingerprint } from "@kiln/domain/user/SshPublicKey"

/** A word as a POSIX shell reads it back unchanged. */
export const shellQuote = (word: string): string => /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'"'"'`)}'`

/**
 * The command sshd is to force: `kiln serv key-<id>` as this command line was started (its Node
 * and script), with the data directory it was given, so that it finds the same server.
 */
export const servCommandLine = (options: { readonly dataDir: string; readonly argv: ReadonlyArray<string>; readonly keyId: number }): string => {
  const [node = "node", script = "kiln.js"] = options.argv
  const dataDir = isAbsolute(options.dataDir) ? options.dataDir : resolve(options.dataDir)
  return ["env", `KILN_DATA_DIR=${dataDir}`, node, resolve(script), "serv", `key-${options.keyId}`].map(shellQuote).join(" ")
}

/** Forgejo's authorized_keys line (AuthorizedStringForKey), `command` escaped for its double quotes. */
export const authorizedKeyLine = (command: string, content: string): string =>
  `command="${command.replaceAll("\\", "\\\\").replaceAll("\"", "\\\"")}",no-port-forwarding,no-X11-forwarding,no-agent-forwarding,no-pty,no-user-rc,restrict ${content}`

/** The stored key for `<type> <base64>` (its id and stored content); none for an unknown key. */
export const authorizedKey = (options: { readonly type: string; readonly key: string }) =>
  Effect.gen(function*() {
    const identities = yield* SshIdentities
    // Any key OpenSSH offers is looked up: the size rules were checked when it was stored.
    const parsed = yield* Effect.option(parseSshPublicKey(`${options.type} ${options.key}`, { check: false, minimumBits: {} }))
    if (Option.isNone(parsed)) return Option.none<{ readonly keyId: number; readonly content: string }>()
    const fingerprint = yield* sshFingerprint(parsed.value)
    const identity = yield* identities.byFingerprint(fingerprint)
    return Option.map(identity, (found) => ({ keyId: found.key.id, content: found.key.content }))
  })
