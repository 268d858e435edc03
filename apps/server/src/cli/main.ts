/**
 * `pnpm kiln admin user create|list`: administration without the server, on the embedded data
 * dir (the server must be stopped: the data dir admits one process) or on DATABASE_URL.
 * `pnpm kiln dump|restore`: backups (BackupCommands.ts); `pnpm kiln doctor`: the consistency check.
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeServices from "@effect/platform-node/NodeServices"
import { Console, Effect, Layer, Redacted } from "effect"
import { CliError, Command, Flag } from "effect/cli"
import { pageRequest } from "@kiln/domain/Paging"
import { MIN_PASSWORD_LENGTH, UserAccounts } from "@kiln/domain/user/UserAccounts"
import * as Application from "../Application.ts"
import { dumpCommand, restoreCommand } from "./BackupCommands.ts"
import { userFacing } from "./CommandFailure.ts"
import { doctorCommand } from "./DoctorCommand.ts"
import { keysCommand, servCommand } from "./SshCommands.ts"
import * as KilnConfig from "../config/KilnConfig.ts"
import * as Database from "../Database.ts"
import { KILN_VERSION } from "../KilnVersion.ts"

const ApplicationLive = Application.layer.pipe(Layer.provide(Database.layer), Layer.provide(KilnConfig.layer))

const create = Command.make(
  "create",
  {
    username: Flag.String("username").pipe(Flag.withDescription("Name of the new user")),
    password: Flag.String("password").pipe(Flag.withDescription("Its password (at least 8 characters)")),
    email: Flag.String("email").pipe(Flag.withDescription("Its e-mail address")),
    admin: Flag.Boolean("admin").pipe(Flag.withDescription("Make it a site administrator"), Flag.withDefault(false)),
    mustChangePassword: Flag.Boolean("must-change-password").pipe(
      Flag.withDescription("Require a password change before the API can be used"),
      Flag.withDefault(false)
    )
  },
  Effect.fnUntraced(function*(flags) {
    const accounts = yield* UserAccounts
    const user = yield* accounts.create({
      username: flags.username,
      email: flags.email,
      password: Redacted.make(flags.password),
      isAdmin: flags.admin,
      mustChangePassword: flags.mustChangePassword
    }).pipe(Effect.mapError((error) => {
      const reason = error._tag === "Invalid" && error.field === "Password"
        ? `the password needs at least ${MIN_PASSWORD_LENGTH} characters`
        : error.message
      return new CliError.UserError({ cause: error, userMessage: `kiln admin user create: cannot create ${flags.username}: ${reason}` })
    }))
    yield* Console.log(`created ${user.isAdmin ? "site administrator" : "user"} ${user.name} (id ${user.id})`)
  }, Effect.provide(ApplicationLive), userFacing("admin user create"))
).pipe(Command.withDescription("Create a user"))

const list = Command.make(
  "list",
  { admins: Flag.Boolean("admin").pipe(Flag.withDescription("Only site administrators"), Flag.withDefault(false)) },
  Effect.fnUntraced(function*(flags) {
    const accounts = yield* UserAccounts
    let page = 1
    yield* Console.log("ID\tUsername\tEmail\tIsAdmin")
    while (true) {
      const result = yield* accounts.list({ sort: "oldest", page: pageRequest(page, 50) })
      for (const user of result.items) {
        if (flags.admins && !user.isAdmin) continue
        yield* Console.log(`${user.id}\t${user.name}\t${user.email}\t${user.isAdmin}`)
      }
      if (page * 50 >= result.total) break
      page++
    }
  }, Effect.provide(ApplicationLive), userFacing("admin user list"))
).pipe(Command.withDescription("List users"))

const user = Command.make("user").pipe(Command.withSubcommands([create, list]), Command.withDescription("Manage users"))
const admin = Command.make("admin").pipe(Command.withSubcommands([user]), Command.withDescription("Administration"))
const kiln = Command.make("kiln").pipe(Command.withSubcommands([admin, dumpCommand, restoreCommand, doctorCommand, keysCommand, servCommand]), Command.withDescription("Kiln's command line"))

kiln.pipe(Command.run({ version: KILN_VERSION }), Effect.provide(NodeServices.layer), NodeRuntime.runMain)
