-- CreateTable
CREATE TABLE "A2ALimitEntry" (
    "key" TEXT NOT NULL,
    "id" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL,
    "expiresAt" DATETIME NOT NULL,

    PRIMARY KEY ("key", "id")
);

-- CreateIndex
CREATE INDEX "A2ALimitEntry_key_expiresAt_idx" ON "A2ALimitEntry"("key", "expiresAt");
