/**
 * A digest of the migrations' sources (every `NNNN_*.ts` beside this file, names and contents):
 * the name of the cached template database that has them applied (PgliteTemplate.ts), so that a
 * changed migration never comes from a template made before the change. Kept here rather than
 * computed, because the bundled server has no migration files to read; test/MigrationsFingerprint
 * fails, naming the new value, until it is updated after a migration changed.
 */
export const MIGRATIONS_FINGERPRINT = "d299f858f571def3"
