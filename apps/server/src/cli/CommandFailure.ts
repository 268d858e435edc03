/**
 * A command that cannot do its work for a reason its operator can act on (a bad setting, a data
 * directory held by a running server, a database that does not open or refuses the login, an
 * archive refused) says so in one line through effect/cli's error rendering, with exit status 1.
 * Anything else is a defect and is reported whole, with its stack.
 */
import { Effect } from "effect"
import { CliError } from "effect/cli"
import { SqlError } from "effect/sql"
import { DataDirInUse, DataDirLockFailed, DatabaseOpenFailed } from "@kiln/postgres"
import { BackupFailed } from "../backup/BackupFailed.ts"
import { InvalidConfiguration } from "../config/KilnConfig.ts"

const operatorMessage = (error: unknown): string | undefined => {
  if (error instanceof DataDirInUse) {
    return `${error.message}: a server running on the embedded database holds it; stop it first (kiln dump works through it)`
  }
  if (error instanceof BackupFailed || error instanceof InvalidConfiguration || error instanceof DataDirLockFailed || error instanceof DatabaseOpenFailed) {
    return error.message
  }
  if (SqlError.isSqlError(error) && ["ConnectionError", "AuthenticationError", "AuthorizationError"].includes(error.reason._tag)) {
    return `the database: ${error.message}`
  }
  return undefined
}

/** `effect`'s failures an operator can act on, as CliError.UserError with their one line. */
export const userFacing = (command: string) => <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E | CliError.UserError, R> =>
  Effect.catch(effect, (error) => {
    const message = operatorMessage(error)
    return Effect.fail(message === undefined ? error : new CliError.UserError({ cause: error, userMessage: `kiln ${command}: ${message}` }))
  })
