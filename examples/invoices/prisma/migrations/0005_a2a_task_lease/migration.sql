-- AlterTable
ALTER TABLE "A2ATask" ADD COLUMN "leaseUntil" DATETIME;
ALTER TABLE "A2ATask" ADD COLUMN "runner" TEXT;

-- CreateIndex
CREATE INDEX "A2ATask_statusState_leaseUntil_idx" ON "A2ATask"("statusState", "leaseUntil");

