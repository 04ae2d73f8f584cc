-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateTable
CREATE TABLE "A2ATask" (
    "id" TEXT NOT NULL,
    "contextId" TEXT NOT NULL,
    "owner" TEXT NOT NULL,
    "tenant" TEXT,
    "scope" TEXT,
    "skill" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "task" JSONB NOT NULL,
    "messageIds" JSONB NOT NULL,
    "repliedWithMessage" BOOLEAN,
    "createdAt" TIMESTAMP(3) NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL,
    "statusState" TEXT NOT NULL,
    "statusTime" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "A2ATask_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "A2ATaskMessage" (
    "owner" TEXT NOT NULL,
    "messageId" TEXT NOT NULL,
    "taskId" TEXT NOT NULL,

    CONSTRAINT "A2ATaskMessage_pkey" PRIMARY KEY ("owner","messageId","taskId")
);

-- CreateTable
CREATE TABLE "A2APushConfig" (
    "taskId" TEXT NOT NULL,
    "id" TEXT NOT NULL,
    "owner" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "token" TEXT,
    "authentication" JSONB,
    "createdAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "A2APushConfig_pkey" PRIMARY KEY ("taskId","id")
);

-- CreateTable
CREATE TABLE "A2AApiKey" (
    "id" TEXT NOT NULL,
    "hash" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "owner" TEXT NOT NULL,
    "tenant" TEXT,
    "scopes" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL,
    "lastUsedAt" TIMESTAMP(3),
    "revokedAt" TIMESTAMP(3),

    CONSTRAINT "A2AApiKey_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "User" (
    "id" TEXT NOT NULL,
    "email" TEXT NOT NULL,
    "name" TEXT NOT NULL,

    CONSTRAINT "User_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Customer" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "email" TEXT,
    "userId" TEXT NOT NULL,

    CONSTRAINT "Customer_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Invoice" (
    "id" TEXT NOT NULL,
    "number" TEXT NOT NULL,
    "total" DECIMAL(65,30) NOT NULL,
    "currency" TEXT NOT NULL DEFAULT 'EUR',
    "dueAt" TIMESTAMP(3) NOT NULL,
    "paid" BOOLEAN NOT NULL DEFAULT false,
    "note" TEXT,
    "customerId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Invoice_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "A2ATask_owner_tenant_scope_statusTime_idx" ON "A2ATask"("owner", "tenant", "scope", "statusTime");

-- CreateIndex
CREATE INDEX "A2ATask_owner_contextId_idx" ON "A2ATask"("owner", "contextId");

-- CreateIndex
CREATE INDEX "A2ATaskMessage_taskId_idx" ON "A2ATaskMessage"("taskId");

-- CreateIndex
CREATE UNIQUE INDEX "A2AApiKey_hash_key" ON "A2AApiKey"("hash");

-- CreateIndex
CREATE INDEX "A2AApiKey_owner_idx" ON "A2AApiKey"("owner");

-- CreateIndex
CREATE UNIQUE INDEX "User_email_key" ON "User"("email");

-- AddForeignKey
ALTER TABLE "Customer" ADD CONSTRAINT "Customer_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Invoice" ADD CONSTRAINT "Invoice_customerId_fkey" FOREIGN KEY ("customerId") REFERENCES "Customer"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Invoice" ADD CONSTRAINT "Invoice_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

