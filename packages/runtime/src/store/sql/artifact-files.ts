/**
 * {@link ArtifactFiles} in the A2AArtifactFile table, on the task store's own connection (SQLite
 * or PostgreSQL), so every replica serves a file any of them stored. The sweep deletes in one
 * statement the files whose task row is gone.
 * @module
 */
import type { Executor } from './executor.js'
import { toDate } from './rows.js'
import { sql } from './sql.js'
import type { ArtifactFile, ArtifactFiles } from '../../core/artifact-files.js'

interface FileRow {
  taskId: string
  id: string
  owner: string
  mediaType: string
  filename: string | null
  bytes: Uint8Array
  createdAt: Date | string | number
}

export class SqlArtifactFiles implements ArtifactFiles {
  constructor(private readonly db: Executor) {}

  async put(file: ArtifactFile): Promise<void> {
    await this.db.execute(
      this.db.dialect.insertIgnore(
        'A2AArtifactFile',
        ['taskId', 'id', 'owner', 'mediaType', 'filename', 'bytes', 'createdAt'],
        sql`VALUES (${file.taskId}, ${file.id}, ${file.owner}, ${file.mediaType}, ${file.filename ?? null}, ${Buffer.from(file.bytes)}, ${toDate(file.createdAt)})`,
      ),
      { idempotent: true },
    )
  }

  async get(taskId: string, id: string): Promise<ArtifactFile | undefined> {
    const [row] = await this.db.query<FileRow>(sql`SELECT * FROM "A2AArtifactFile" WHERE "taskId" = ${taskId} AND "id" = ${id}`, { idempotent: true })
    if (!row) return undefined
    return {
      taskId: row.taskId,
      id: row.id,
      owner: row.owner,
      mediaType: row.mediaType,
      ...(row.filename !== null ? { filename: row.filename } : {}),
      bytes: row.bytes,
      createdAt: new Date(row.createdAt).getTime(),
    }
  }

  async sweep(): Promise<number> {
    return this.db.execute(sql`DELETE FROM "A2AArtifactFile" WHERE "taskId" NOT IN (SELECT "id" FROM "A2ATask")`, { idempotent: true })
  }
}
