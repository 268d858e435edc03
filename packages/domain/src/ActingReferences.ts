/**
 * The References (settings and registries, each with a default) that the domain's services read
 * while they act rather than when they are built. A Reference has no place in the types of what
 * reads it, so whoever runs these services on a narrower service map than the one they were
 * built in must carry these along: left out, a setting silently falls back to its default.
 */
import { SignInLimits } from "./auth/SignInLimits.ts"
import { LfsSettings } from "./lfs/LfsSettings.ts"
import { LfsTokenSettings } from "./lfs/LfsTokens.ts"
import { OrganizationDeletionGuards, OrganizationSettings } from "./org/Organizations.ts"
import { MigrationSettings } from "./repo/MigrationHostPolicy.ts"
import { RepositoryCleanups, RepositorySettings } from "./repo/Repositories.ts"
import { AccountDeletionGuards, AccountPurgers } from "./user/UserAccounts.ts"
import { WebhookSettings } from "./webhook/WebhookSettings.ts"

export const actingReferences = [
  AccountDeletionGuards,
  AccountPurgers,
  LfsSettings,
  LfsTokenSettings,
  MigrationSettings,
  OrganizationDeletionGuards,
  OrganizationSettings,
  RepositoryCleanups,
  RepositorySettings,
  SignInLimits,
  WebhookSettings
] as const
