-- CreateTable
CREATE TABLE "A2ATask" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "contextId" TEXT NOT NULL,
    "owner" TEXT NOT NULL,
    "tenant" TEXT,
    "scope" TEXT,
    "skill" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "task" JSONB NOT NULL,
    "messageIds" JSONB NOT NULL,
    "repliedWithMessage" BOOLEAN NOT NULL DEFAULT false,
    "createdAt" DATETIME NOT NULL,
    "updatedAt" DATETIME NOT NULL,
    "statusState" TEXT NOT NULL,
    "statusTime" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "A2APushConfig" (
    "taskId" TEXT NOT NULL,
    "id" TEXT NOT NULL,
    "owner" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "token" TEXT,
    "authentication" JSONB,
    "createdAt" DATETIME NOT NULL,

    PRIMARY KEY ("taskId", "id")
);

-- CreateTable
CREATE TABLE "User" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "email" TEXT NOT NULL,
    "name" TEXT NOT NULL
);

-- CreateTable
CREATE TABLE "Customer" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "name" TEXT NOT NULL,
    "email" TEXT,
    "userId" TEXT NOT NULL,
    CONSTRAINT "Customer_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User" ("id") ON DELETE RESTRICT ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "Invoice" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "number" TEXT NOT NULL,
    "total" DECIMAL NOT NULL,
    "currency" TEXT NOT NULL DEFAULT 'EUR',
    "dueAt" DATETIME NOT NULL,
    "paid" BOOLEAN NOT NULL DEFAULT false,
    "note" TEXT,
    "customerId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "Invoice_customerId_fkey" FOREIGN KEY ("customerId") REFERENCES "Customer" ("id") ON DELETE RESTRICT ON UPDATE CASCADE,
    CONSTRAINT "Invoice_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User" ("id") ON DELETE RESTRICT ON UPDATE CASCADE
);

-- CreateIndex
CREATE INDEX "A2ATask_owner_tenant_scope_statusTime_idx" ON "A2ATask"("owner", "tenant", "scope", "statusTime");

-- CreateIndex
CREATE INDEX "A2ATask_owner_contextId_idx" ON "A2ATask"("owner", "contextId");

-- CreateIndex
CREATE INDEX "A2APushConfig_taskId_idx" ON "A2APushConfig"("taskId");

-- CreateIndex
CREATE UNIQUE INDEX "User_email_key" ON "User"("email");

