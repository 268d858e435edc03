/** Kiln's schema, in order. Each migration runs once, inside a transaction, at start-up. */
import * as Migrations from "../Migrations.ts"
import accounts from "./0001_accounts.ts"

export const loader: Migrations.Loader = Migrations.fromRecord({
  "0001_accounts": accounts,
  "0002_organizations": (await import("./0002_organizations.ts")).default
})

export const layer = Migrations.layer(loader)
