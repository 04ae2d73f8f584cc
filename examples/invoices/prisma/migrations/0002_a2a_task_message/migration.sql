-- DropIndex
DROP INDEX "A2APushConfig_taskId_idx";

-- CreateTable
CREATE TABLE "A2ATaskMessage" (
    "owner" TEXT NOT NULL,
    "messageId" TEXT NOT NULL,
    "taskId" TEXT NOT NULL,

    PRIMARY KEY ("owner", "messageId", "taskId")
);

-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_A2ATask" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "contextId" TEXT NOT NULL,
    "owner" TEXT NOT NULL,
    "tenant" TEXT,
    "scope" TEXT,
    "skill" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "task" JSONB NOT NULL,
    "messageIds" JSONB NOT NULL,
    "repliedWithMessage" BOOLEAN,
    "createdAt" DATETIME NOT NULL,
    "updatedAt" DATETIME NOT NULL,
    "statusState" TEXT NOT NULL,
    "statusTime" DATETIME NOT NULL
);
INSERT INTO "new_A2ATask" ("contextId", "createdAt", "id", "messageIds", "owner", "repliedWithMessage", "scope", "skill", "statusState", "statusTime", "task", "tenant", "updatedAt", "version") SELECT "contextId", "createdAt", "id", "messageIds", "owner", "repliedWithMessage", "scope", "skill", "statusState", "statusTime", "task", "tenant", "updatedAt", "version" FROM "A2ATask";
DROP TABLE "A2ATask";
ALTER TABLE "new_A2ATask" RENAME TO "A2ATask";
CREATE INDEX "A2ATask_owner_tenant_scope_statusTime_idx" ON "A2ATask"("owner", "tenant", "scope", "statusTime");
CREATE INDEX "A2ATask_owner_contextId_idx" ON "A2ATask"("owner", "contextId");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

-- CreateIndex
CREATE INDEX "A2ATaskMessage_taskId_idx" ON "A2ATaskMessage"("taskId");

-- Backfill (hand-written): index the message ids of tasks stored before this migration.
INSERT OR IGNORE INTO "A2ATaskMessage" ("owner", "messageId", "taskId")
SELECT "A2ATask"."owner", "ids"."value", "A2ATask"."id" FROM "A2ATask", json_each("A2ATask"."messageIds") AS "ids";
