/**
 * The extensions Kiln's schema needs (trigram indexes for repository search): made by whatever
 * makes or opens a database (Database, PgliteTemplate) and by a restore that replaced the schema
 * they lived in (DatabaseRestore).
 */
export const createExtensions = "CREATE EXTENSION IF NOT EXISTS pg_trgm"
