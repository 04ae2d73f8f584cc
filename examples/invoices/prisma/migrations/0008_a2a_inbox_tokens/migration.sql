-- CreateTable
CREATE TABLE "A2AInboxToken" (
    "hash" TEXT NOT NULL PRIMARY KEY,
    "kind" TEXT NOT NULL,
    "owner" TEXT NOT NULL,
    "tenant" TEXT,
    "createdAt" DATETIME NOT NULL,
    "expiresAt" DATETIME NOT NULL,
    "usedAt" DATETIME
);

-- CreateIndex
CREATE INDEX "A2AInboxToken_owner_idx" ON "A2AInboxToken"("owner");

-- CreateIndex
CREATE INDEX "A2AInboxToken_expiresAt_idx" ON "A2AInboxToken"("expiresAt");
