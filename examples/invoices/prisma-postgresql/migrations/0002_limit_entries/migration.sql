-- CreateTable
CREATE TABLE "A2ALimitEntry" (
    "key" TEXT NOT NULL,
    "id" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL,
    "expiresAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "A2ALimitEntry_pkey" PRIMARY KEY ("key","id")
);

-- CreateIndex
CREATE INDEX "A2ALimitEntry_key_expiresAt_idx" ON "A2ALimitEntry"("key", "expiresAt");
