/**
 * The application without HTTP: domain services over the Postgres stores and the platform
 * adapters. Another Node service can embed Kiln by building this layer over a database.
 */
import { Effect, Layer, Option } from "effect"
import { join } from "node:path"
import { SecureRandom } from "effect/crypto"
import * as AccessTokens from "@kiln/domain/auth/AccessTokens"
import * as Authentication from "@kiln/domain/auth/Authentication"
import * as KnownFailures from "@kiln/domain/auth/KnownFailures"
import * as SignInCache from "@kiln/domain/auth/SignInCache"
import * as Organizations from "@kiln/domain/org/Organizations"
import { OrganizationDeletionGuards } from "@kiln/domain/org/Organizations"
import * as OrgMembers from "@kiln/domain/org/OrgMembers"
import * as Teams from "@kiln/domain/org/Teams"
import * as Packages from "@kiln/domain/package/Packages"
import { QuotaConfig } from "@kiln/domain/quota/QuotaConfig"
import * as Branches from "@kiln/domain/git/Branches"
import * as BranchTableConsistency from "@kiln/domain/git/BranchTableConsistency"
import * as CommitStatuses from "@kiln/domain/git/CommitStatuses"
import { MigrationSettings } from "@kiln/domain/repo/MigrationHostPolicy"
import * as PasswordDerivations from "@kiln/domain/auth/PasswordDerivations"
import { SignInLimits, WAITING_SIGN_INS_PER_TURN } from "@kiln/domain/auth/SignInLimits"
import * as AttachmentCleanup from "@kiln/domain/release/AttachmentCleanup"
import * as Releases from "@kiln/domain/release/Releases"
import * as DeployKeys from "@kiln/domain/repo/DeployKeys"
import * as SshIdentities from "@kiln/domain/ssh/SshIdentities"
import * as DirectorySteps from "@kiln/domain/repo/DirectorySteps"
import * as Repositories from "@kiln/domain/repo/Repositories"
import * as UnadoptedRepositories from "@kiln/domain/repo/UnadoptedRepositories"
import { QuotaEnforcement } from "@kiln/domain/quota/QuotaEnforcement"
import * as GitAccess from "@kiln/domain/git/GitAccess"
import * as LfsCollection from "@kiln/domain/lfs/LfsCollection"
import * as LfsLocks from "@kiln/domain/lfs/LfsLocks"
import * as LfsObjects from "@kiln/domain/lfs/LfsObjects"
import { LfsSettings } from "@kiln/domain/lfs/LfsSettings"
import * as LfsTokens from "@kiln/domain/lfs/LfsTokens"
import { QuotaService } from "@kiln/domain/quota/QuotaService"
import * as PublicKeys from "@kiln/domain/user/PublicKeys"
import * as AccountPurge from "@kiln/domain/user/AccountPurge"
import * as UserAccounts from "@kiln/domain/user/UserAccounts"
import { AccountDeletionGuards } from "@kiln/domain/user/UserAccounts"
import { BlobStorageLive } from "@kiln/blobs"
import { GitTagsLive } from "@kiln/git"
import { GitArchivesLive, GitPushCommitsLive, GitStorageLive, GitTransfersLive, RepositoryDirectoriesLive } from "@kiln/git"
import * as Coordination from "@kiln/postgres/coordination/Coordination"
import * as AccessTokenStoreSql from "@kiln/postgres/stores/AccessTokenStoreSql"
import * as BranchStoreSql from "@kiln/postgres/stores/BranchStoreSql"
import * as CommitStatusStoreSql from "@kiln/postgres/stores/CommitStatusStoreSql"
import * as DeployKeyStoreSql from "@kiln/postgres/stores/DeployKeyStoreSql"
import * as SshKeyStoreSql from "@kiln/postgres/stores/SshKeyStoreSql"
import * as LfsStoreSql from "@kiln/postgres/stores/LfsStoreSql"
import * as OrganizationStoreSql from "@kiln/postgres/stores/OrganizationStoreSql"
import * as PackageStoreSql from "@kiln/postgres/stores/PackageStoreSql"
import * as PublicKeyStoreSql from "@kiln/postgres/stores/PublicKeyStoreSql"
import * as QuotaStoreSql from "@kiln/postgres/stores/QuotaStoreSql"
import * as ReleaseStoreSql from "@kiln/postgres/stores/ReleaseStoreSql"
import * as RepositoryInventorySql from "@kiln/postgres/stores/RepositoryInventorySql"
import * as RepositoryRedirectStoreSql from "@kiln/postgres/stores/RepositoryRedirectStoreSql"
import * as RepositoryStoreSql from "@kiln/postgres/stores/RepositoryStoreSql"
import * as PendingDirectoryStepsSql from "@kiln/postgres/stores/PendingDirectoryStepsSql"
import * as RepositoryTransactionsSql from "@kiln/postgres/stores/RepositoryTransactionsSql"
import * as SignInFailureStoreSql from "@kiln/postgres/stores/SignInFailureStoreSql"
import * as TeamStoreSql from "@kiln/postgres/stores/TeamStoreSql"
import * as UserStoreSql from "@kiln/postgres/stores/UserStoreSql"
import * as WebhookDeliveryStoreSql from "@kiln/postgres/stores/WebhookDeliveryStoreSql"
import * as WebhookStoreSql from "@kiln/postgres/stores/WebhookStoreSql"
import * as WebhookDeliveries from "@kiln/domain/webhook/WebhookDeliveries"
import * as WebhookEvents from "@kiln/domain/webhook/WebhookEvents"
import * as Webhooks from "@kiln/domain/webhook/Webhooks"
import { WebhookSettings } from "@kiln/domain/webhook/WebhookSettings"
import * as NodeHookTransport from "./platform/NodeHookTransport.ts"
import * as WebhookMetrics from "./metrics/WebhookMetrics.ts"
import * as NodeMac from "./platform/NodeMac.ts"
import { KilnConfig } from "./config/KilnConfig.ts"
import * as GitListings from "./git/GitListings.ts"
import * as GitProcessPool from "./git/GitProcessPool.ts"
import * as NodeDigest from "./platform/NodeDigest.ts"
import * as ScryptPasswordHasher from "./platform/ScryptPasswordHasher.ts"
import * as TemplateInitialFiles from "./platform/TemplateInitialFiles.ts"

/**
 * Accounts and tokens, each write making every process forget the token sign-ins it remembered
 * (SignInCache, through Changes).
 */
const AccountStores = SignInCache.forgettingStores.pipe(
  Layer.provide(Layer.mergeAll(UserStoreSql.layer, AccessTokenStoreSql.layer, RepositoryTransactionsSql.layer)),
  Layer.provideMerge(SignInCache.layer())
)

/** Failed sign-ins in the database, the keys that may be failing known in every process (through Changes). */
const SignInFailures = KnownFailures.followingStore.pipe(Layer.provide(SignInFailureStoreSql.layer))

export const Stores = Layer.mergeAll(AccountStores, PublicKeyStoreSql.layer, DeployKeyStoreSql.layer, SshKeyStoreSql.layer, SignInFailures)
  .pipe(Layer.merge(Layer.mergeAll(
    // Organizations are user rows, written through the same UserStore.
    OrganizationStoreSql.layer.pipe(Layer.provide(UserStoreSql.layer)),
    TeamStoreSql.layer,
    WebhookStoreSql.layer,
    WebhookDeliveryStoreSql.layer
  )))
  .pipe(Layer.merge(QuotaStoreSql.layer))
  .pipe(Layer.merge(Layer.mergeAll(RepositoryStoreSql.layer, RepositoryRedirectStoreSql.layer, RepositoryTransactionsSql.layer)))
  .pipe(Layer.merge(PendingDirectoryStepsSql.layer))
  .pipe(Layer.merge(Layer.mergeAll(BranchStoreSql.layer, CommitStatusStoreSql.layer)))
  .pipe(Layer.merge(Layer.mergeAll(ReleaseStoreSql.layer, PackageStoreSql.layer)))
  .pipe(Layer.merge(LfsStoreSql.layer))

export const Platform = Layer.mergeAll(ScryptPasswordHasher.layer, NodeDigest.layer, SecureRandom.layerWebCrypto, NodeMac.layer)

/** `KILN_WEBHOOK_*`; an embedding without a KilnConfig has Forgejo's defaults. */
const WebhookSettingsLive = Layer.unwrap(Effect.map(Effect.serviceOption(KilnConfig), (config) =>
  Option.match(config, { onNone: () => Layer.empty, onSome: (settings) => Layer.succeed(WebhookSettings, settings.webhook) })))

/** Webhooks: the hooks, the deliveries events leave behind, and the sending of them. */
export const WebhooksLive = Layer.mergeAll(Webhooks.layer, WebhookEvents.layer, WebhookDeliveries.layer).pipe(
  Layer.provide(WebhookMetrics.measuredTransport.pipe(Layer.provide(NodeHookTransport.layer))),
  Layer.provide(WebhookSettingsLive)
)

/**
 * Bare repositories under `<KILN_DATA_DIR>/repositories` (`./data` for an embedding without a
 * KilnConfig), and their directories as such (with or without a row). Packs are kept in memory up
 * to KILN_GIT_PACK_CACHE_MAX_SIZE.
 */
export const RepositoryStorage = Layer.unwrap(Effect.map(Effect.serviceOption(KilnConfig), (config) => {
  const root = join(Option.match(config, { onNone: () => "./data", onSome: (settings) => settings.dataDir }), "repositories")
  const packCache = Option.match(config, { onNone: () => ({}), onSome: (settings) => ({ packCacheMaxBytes: settings.gitPackCacheMaxSize }) })
  return Layer.merge(GitStorageLive(root, packCache), RepositoryDirectoriesLive(root))
}))

/**
 * Archives of the repositories, cached under `<KILN_DATA_DIR>/archives` up to KILN_ARCHIVE_CACHE_MAX_SIZE
 * (unbounded for an embedding without a KilnConfig). The repository service forgets a repository's
 * archives when it is deleted or renamed.
 */
export const ArchiveCache = Layer.unwrap(Effect.map(Effect.serviceOption(KilnConfig), (config) => {
  const dataDir = Option.match(config, { onNone: () => "./data", onSome: (settings) => settings.dataDir })
  const maxBytes = Option.match(config, {
    onNone: () => ({}),
    onSome: (settings) => ({ maxBytes: settings.archiveCacheMaxSize, maxConcurrent: settings.archiveMaxConcurrent })
  })
  return GitArchivesLive(join(dataDir, "repositories"), { cacheDir: join(dataDir, "archives"), ...maxBytes })
}))

/**
 * Archives, forks and migrations over the same repositories, with the migration host policy and
 * size limit from KILN_MIGRATIONS_*.
 */
export const RepositoryContent = Layer.unwrap(Effect.map(Effect.serviceOption(KilnConfig), (config) => {
  const dataDir = Option.match(config, { onNone: () => "./data", onSome: (settings) => settings.dataDir })
  const root = join(dataDir, "repositories")
  const policy = Option.match(config, {
    onNone: () => MigrationSettings.defaultValue(),
    onSome: (settings) => ({
      allowLocal: settings.migrationsAllowLocal,
      allowedDomains: settings.migrationsAllowedDomains,
      allowLocalPaths: settings.migrationsAllowLocalPaths,
      maxSize: settings.migrationsMaxSize
    })
  })
  return Layer.mergeAll(
    // The HTTP handlers of archives and editorconfig read commits through it.
    RepositoryStorage,
    ArchiveCache,
    GitTransfersLive(root, { maxSize: policy.maxSize }),
    // What a push brought, for its webhook payloads.
    GitPushCommitsLive(root),
    Layer.succeed(MigrationSettings, policy)
  )
}))

/** The branch table kept in step with git, and commit statuses. */
export const BranchesLive = Branches.layer.pipe(Layer.provide(RepositoryStorage))
export const CommitStatusesLive = CommitStatuses.layer.pipe(Layer.provide(RepositoryStorage))

/** Repository directories made, moved or removed with their rows, and undone when a process dies in between. */
export const DirectoryStepsLive = DirectorySteps.layer.pipe(Layer.provide(RepositoryStorage))

export const RepositoriesLive = Repositories.layer.pipe(
  Layer.provide(Layer.mergeAll(RepositoryStorage, TemplateInitialFiles.layer, BranchesLive, ArchiveCache, DirectoryStepsLive))
)

/** Directories without a row: listed, adopted or deleted by site administrators. */
export const UnadoptedRepositoriesLive = UnadoptedRepositories.layer.pipe(
  Layer.provide(Layer.mergeAll(RepositoryStorage, BranchesLive, RepositoryInventorySql.layer, DirectoryStepsLive))
)

/** The branch table compared with git's refs, and rewritten from them (doctor, restore). */
export const BranchTableConsistencyLive = BranchTableConsistency.layer.pipe(
  Layer.provide(Layer.mergeAll(RepositoryStorage, BranchesLive))
)

/**
 * Release attachments and package blobs under `<KILN_DATA_DIR>` (attachments/, packages/, tmp/),
 * and the tags releases make in the repositories.
 */
export const AssetStorage = Layer.unwrap(Effect.map(Effect.serviceOption(KilnConfig), (config) => {
  const dataDir = Option.match(config, { onNone: () => "./data", onSome: (settings) => settings.dataDir })
  return Layer.mergeAll(BlobStorageLive(dataDir), GitTagsLive(join(dataDir, "repositories")))
}))

export const ReleasesLive = Releases.layer.pipe(Layer.provide(Layer.mergeAll(AssetStorage, RepositoryStorage, RepositoriesLive)))
export const PackagesLive = Packages.layer.pipe(Layer.provide(AssetStorage))

/**
 * What each concern refuses to delete while it holds on to it, in Forgejo's order: a user who owns
 * repositories, is a member of organizations or owns packages stays; an organization owning
 * repositories or packages stays. With them, what a purge clears first and what goes with a
 * deleted repository.
 */
export const DeletionGuards = Layer.mergeAll(
  Layer.effect(AccountDeletionGuards, Effect.gen(function*() {
    const organizations = yield* Organizations.Organizations
    const repositories = yield* Repositories.Repositories
    const packages = yield* Packages.Packages
    return [repositories.ownershipGuard, organizations.membershipGuard, packages.ownershipGuard]
  })),
  Layer.effect(OrganizationDeletionGuards, Effect.gen(function*() {
    const repositories = yield* Repositories.Repositories
    const packages = yield* Packages.Packages
    return [repositories.ownershipGuard, packages.ownershipGuard]
  })),
  AccountPurge.layer.pipe(Layer.provide(OrgMembers.layer)),
  AttachmentCleanup.layer.pipe(Layer.provide(AssetStorage))
).pipe(Layer.provide(Organizations.layer), Layer.provide(RepositoriesLive), Layer.provide(PackagesLive))

/** `KILN_QUOTA_DEFAULT_GROUPS`; a service embedding Kiln without a KilnConfig has no default groups. */
export const QuotaSettings = Layer.effect(
  QuotaConfig,
  Effect.map(Effect.serviceOption(KilnConfig), (config) =>
    QuotaConfig.of({
      defaultGroups: Option.match(config, { onNone: () => [], onSome: (settings) => settings.quotaDefaultGroups }),
      enforce: Option.match(config, { onNone: () => false, onSome: (settings) => settings.quotaEnforce })
    }))
)

/** KILN_LFS_* and the root URL `git-lfs-authenticate` answers with; an embedding without a KilnConfig gets the defaults. */
const LfsSettingsLive = Layer.unwrap(Effect.map(Effect.serviceOption(KilnConfig), (config) =>
  Option.match(config, {
    onNone: () => Layer.empty,
    onSome: (settings) =>
      Layer.mergeAll(
        Layer.succeed(LfsSettings, settings.lfs),
        Layer.succeed(LfsTokens.LfsTokenSettings, { ...LfsTokens.LfsTokenSettings.defaultValue(), rootUrl: settings.rootUrl })
      )
  })))

/** How often the collection of unreferenced LFS objects runs (once per due time across processes). */
const LFS_COLLECTION_EVERY = 60 * 60 * 1000

/**
 * Git LFS: objects under `<KILN_DATA_DIR>/lfs` through the blob storage, their references and
 * locks, and the periodic collection of objects nothing references.
 */
const LfsLive = Layer.mergeAll(LfsObjects.layer, LfsLocks.layer, LfsCollection.layer({ every: LFS_COLLECTION_EVERY })).pipe(
  Layer.provide(AssetStorage),
  Layer.provide(LfsSettingsLive)
)

/** KILN_SIGNIN_* and KILN_PASSWORD_HASH_MAX_CONCURRENT; an embedding without a KilnConfig gets the defaults. */
export const SignInLimitsLive = Layer.effect(
  SignInLimits,
  Effect.map(Effect.serviceOption(KilnConfig), (config) =>
    Option.match(config, {
      onNone: () => SignInLimits.defaultValue(),
      onSome: (settings) => ({
        ...SignInLimits.defaultValue(),
        maxFailuresPerAccount: settings.signInMaxFailuresPerAccount,
        maxFailuresPerAddress: settings.signInMaxFailuresPerAddress,
        failureWindowSeconds: settings.signInFailureWindowSeconds,
        maxConcurrentDerivations: settings.passwordHashMaxConcurrent,
        maxWaitingSignIns: settings.passwordHashMaxConcurrent * WAITING_SIGN_INS_PER_TURN
      })
    }))
)

/** One set of turns for every password derivation, sign-ins and new passwords alike. */
const PasswordDerivationsLive = PasswordDerivations.layer.pipe(Layer.provide(SignInLimitsLive))

export const Services = Layer.mergeAll(
  UserAccounts.layer.pipe(Layer.provide(PasswordDerivationsLive)),
  PublicKeys.layer,
  // Who an SSH key speaks for, for both SSH transports.
  SshIdentities.layer,
  // The git processes of smart HTTP and SSH, in one pool, and the listings they keep.
  GitProcessPool.layer,
  GitListings.layer,
  AccessTokens.layer,
  Authentication.layer.pipe(Layer.provide(Layer.merge(SignInLimitsLive, PasswordDerivationsLive)))
)
  .pipe(Layer.merge(Layer.mergeAll(Organizations.layer, Teams.layer, OrgMembers.layer, DeletionGuards)))
  .pipe(Layer.merge(WebhooksLive))
  .pipe(Layer.merge(Layer.provideMerge(QuotaEnforcement.layer, QuotaService.layer).pipe(Layer.provide(QuotaSettings))))
  .pipe(Layer.merge(RepositoriesLive))
  .pipe(Layer.merge(DeployKeys.layer.pipe(Layer.provide(RepositoriesLive))))
  .pipe(Layer.merge(Layer.mergeAll(BranchesLive, CommitStatusesLive)))
  .pipe(Layer.merge(RepositoryContent))
  .pipe(Layer.merge(Layer.mergeAll(ReleasesLive, PackagesLive)))
  .pipe(Layer.merge(Layer.merge(UnadoptedRepositoriesLive, DirectoryStepsLive)))
  .pipe(Layer.merge(BranchTableConsistencyLive))
  .pipe((services) => LfsLive.pipe(Layer.provideMerge(services)))
  // Who may read or push over git, for every transport.
  .pipe((services) => GitAccess.layer.pipe(Layer.provideMerge(services)))
  // `git-lfs-authenticate` (for the SSH transport) and its tokens (for the LFS routes).
  .pipe((services) => LfsTokens.layer.pipe(Layer.provide(LfsSettingsLive), Layer.provideMerge(services)))

/**
 * Everything the HTTP layer and the CLI use, with the coordination between processes (write locks,
 * changes, jobs); requires only a migrated database client.
 */
export const layer = Services.pipe(Layer.provideMerge(Stores), Layer.provideMerge(Platform), Layer.provideMerge(Coordination.layer))
