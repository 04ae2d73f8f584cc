-- CreateTable
CREATE TABLE "A2AApiKey" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "hash" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "owner" TEXT NOT NULL,
    "tenant" TEXT,
    "scopes" TEXT,
    "createdAt" DATETIME NOT NULL,
    "lastUsedAt" DATETIME,
    "revokedAt" DATETIME
);

-- CreateIndex
CREATE UNIQUE INDEX "A2AApiKey_hash_key" ON "A2AApiKey"("hash");

-- CreateIndex
CREATE INDEX "A2AApiKey_owner_idx" ON "A2AApiKey"("owner");

