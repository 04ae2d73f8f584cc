-- CreateTable
CREATE TABLE "A2AArtifactFile" (
    "taskId" TEXT NOT NULL,
    "id" TEXT NOT NULL,
    "owner" TEXT NOT NULL,
    "mediaType" TEXT NOT NULL,
    "filename" TEXT,
    "bytes" BLOB NOT NULL,
    "createdAt" DATETIME NOT NULL,

    PRIMARY KEY ("taskId", "id")
);

-- CreateIndex
CREATE INDEX "A2AArtifactFile_owner_idx" ON "A2AArtifactFile"("owner");
