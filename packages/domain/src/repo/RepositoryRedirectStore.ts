/**
 * The port for the names renamed repositories leave behind (Forgejo's `repo_redirect`): an owner's
 * old repository name leads to the repository until another repository takes that name. Deleting
 * a repository removes the redirects to it with it.
 */
import { Context, type Effect, type Option } from "effect"

export class RepositoryRedirectStore extends Context.Service<RepositoryRedirectStore, {
  /** The repository an owner's old repository `name` (case-insensitive) leads to. */
  readonly find: (ownerId: number, name: string) => Effect.Effect<Option.Option<number>>
  /**
   * After a rename (Forgejo's `NewRedirect`): `from` leads to the repository, and `to`, now its
   * name, leads nowhere else.
   */
  readonly record: (ownerId: number, repositoryId: number, from: string, to: string) => Effect.Effect<void>
  /** A repository took `name` (Forgejo's `DeleteRedirect`): the name no longer redirects. */
  readonly release: (ownerId: number, name: string) => Effect.Effect<void>
}>()("@kiln/domain/repo/RepositoryRedirectStore") {}
