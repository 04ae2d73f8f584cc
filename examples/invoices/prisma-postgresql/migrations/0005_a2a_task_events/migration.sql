-- CreateTable
CREATE TABLE "A2ATaskEvent" (
    "taskId" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "owner" TEXT NOT NULL,
    "event" JSONB NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "A2ATaskEvent_pkey" PRIMARY KEY ("taskId","version")
);

-- CreateIndex
CREATE INDEX "A2ATaskEvent_createdAt_idx" ON "A2ATaskEvent"("createdAt");
