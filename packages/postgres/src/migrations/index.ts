/** Kiln's schema, in order. Each migration runs once, inside a transaction, at start-up. */
import * as Migrations from "../Migrations.ts"
import accounts from "./0001_accounts.ts"
import organizations from "./0002_organizations.ts"
import repositories from "./0003_repositories.ts"

export const loader: Migrations.Loader = Migrations.fromRecord({
  "0001_accounts": accounts,
  "0002_organizations": organizations,
  "0003_repositories": repositories
})

export const layer = Migrations.layer(loader)
