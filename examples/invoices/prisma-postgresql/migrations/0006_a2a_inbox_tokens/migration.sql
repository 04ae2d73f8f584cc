-- CreateTable
CREATE TABLE "A2AInboxToken" (
    "hash" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "owner" TEXT NOT NULL,
    "tenant" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL,
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "usedAt" TIMESTAMP(3),

    CONSTRAINT "A2AInboxToken_pkey" PRIMARY KEY ("hash")
);

-- CreateIndex
CREATE INDEX "A2AInboxToken_owner_idx" ON "A2AInboxToken"("owner");

-- CreateIndex
CREATE INDEX "A2AInboxToken_expiresAt_idx" ON "A2AInboxToken"("expiresAt");
