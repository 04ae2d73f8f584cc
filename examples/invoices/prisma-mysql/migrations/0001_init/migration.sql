-- CreateTable
CREATE TABLE `A2ATask` (
    `id` VARCHAR(191) NOT NULL,
    `contextId` VARCHAR(191) NOT NULL,
    `owner` VARCHAR(191) NOT NULL,
    `tenant` VARCHAR(191) NULL,
    `scope` VARCHAR(191) NULL,
    `skill` VARCHAR(191) NOT NULL,
    `version` INTEGER NOT NULL,
    `task` JSON NOT NULL,
    `messageIds` JSON NOT NULL,
    `repliedWithMessage` BOOLEAN NULL,
    `createdAt` DATETIME(3) NOT NULL,
    `updatedAt` DATETIME(3) NOT NULL,
    `statusState` VARCHAR(191) NOT NULL,
    `statusTime` DATETIME(3) NOT NULL,
    `runner` VARCHAR(191) NULL,
    `leaseUntil` DATETIME(3) NULL,
    INDEX `A2ATask_owner_tenant_scope_statusTime_idx`(`owner`, `tenant`, `scope`, `statusTime`),
    INDEX `A2ATask_owner_contextId_idx`(`owner`, `contextId`),
    INDEX `A2ATask_statusState_leaseUntil_idx`(`statusState`, `leaseUntil`),
    PRIMARY KEY (`id`)
) DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;

-- CreateTable
CREATE TABLE `A2ATaskEvent` (
    `taskId` VARCHAR(191) NOT NULL,
    `version` INTEGER NOT NULL,
    `owner` VARCHAR(191) NOT NULL,
    `event` JSON NOT NULL,
    `createdAt` DATETIME(3) NOT NULL,
    INDEX `A2ATaskEvent_createdAt_idx`(`createdAt`),
    PRIMARY KEY (`taskId`, `version`)
) DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;

-- CreateTable
CREATE TABLE `A2ATaskMessage` (
    `owner` VARCHAR(191) NOT NULL,
    `messageId` VARCHAR(191) NOT NULL,
    `taskId` VARCHAR(191) NOT NULL,
    INDEX `A2ATaskMessage_taskId_idx`(`taskId`),
    PRIMARY KEY (`owner`, `messageId`, `taskId`)
) DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;

-- CreateTable
CREATE TABLE `A2APushConfig` (
    `taskId` VARCHAR(191) NOT NULL,
    `id` VARCHAR(191) NOT NULL,
    `owner` VARCHAR(191) NOT NULL,
    `url` TEXT NOT NULL,
    `token` TEXT NULL,
    `authentication` JSON NULL,
    `createdAt` DATETIME(3) NOT NULL,
    PRIMARY KEY (`taskId`, `id`)
) DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;

-- CreateTable
CREATE TABLE `A2AApiKey` (
    `id` VARCHAR(191) NOT NULL,
    `hash` VARCHAR(191) NOT NULL,
    `prefix` VARCHAR(191) NOT NULL,
    `owner` VARCHAR(191) NOT NULL,
    `tenant` VARCHAR(191) NULL,
    `scopes` VARCHAR(191) NULL,
    `createdAt` DATETIME(3) NOT NULL,
    `lastUsedAt` DATETIME(3) NULL,
    `revokedAt` DATETIME(3) NULL,
    UNIQUE INDEX `A2AApiKey_hash_key`(`hash`),
    INDEX `A2AApiKey_owner_idx`(`owner`),
    PRIMARY KEY (`id`)
) DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;

-- CreateTable
CREATE TABLE `A2ALimitEntry` (
    `key` VARCHAR(191) NOT NULL,
    `id` VARCHAR(191) NOT NULL,
    `createdAt` DATETIME(3) NOT NULL,
    `expiresAt` DATETIME(3) NOT NULL,
    INDEX `A2ALimitEntry_key_expiresAt_idx`(`key`, `expiresAt`),
    PRIMARY KEY (`key`, `id`)
) DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;

-- CreateTable
CREATE TABLE `A2AArtifactFile` (
    `taskId` VARCHAR(191) NOT NULL,
    `id` VARCHAR(191) NOT NULL,
    `owner` VARCHAR(191) NOT NULL,
    `mediaType` VARCHAR(191) NOT NULL,
    `filename` VARCHAR(191) NULL,
    `bytes` LONGBLOB NOT NULL,
    `createdAt` DATETIME(3) NOT NULL,
    INDEX `A2AArtifactFile_owner_idx`(`owner`),
    PRIMARY KEY (`taskId`, `id`)
) DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;

-- CreateTable
CREATE TABLE `A2AInboxToken` (
    `hash` VARCHAR(191) NOT NULL,
    `kind` VARCHAR(191) NOT NULL,
    `owner` VARCHAR(191) NOT NULL,
    `tenant` VARCHAR(191) NULL,
    `createdAt` DATETIME(3) NOT NULL,
    `expiresAt` DATETIME(3) NOT NULL,
    `usedAt` DATETIME(3) NULL,
    INDEX `A2AInboxToken_owner_idx`(`owner`),
    INDEX `A2AInboxToken_expiresAt_idx`(`expiresAt`),
    PRIMARY KEY (`hash`)
) DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;

-- CreateTable
CREATE TABLE `User` (
    `id` VARCHAR(191) NOT NULL,
    `email` VARCHAR(191) NOT NULL,
    `name` VARCHAR(191) NOT NULL,
    UNIQUE INDEX `User_email_key`(`email`),
    PRIMARY KEY (`id`)
) DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;

-- CreateTable
CREATE TABLE `Customer` (
    `id` VARCHAR(191) NOT NULL,
    `name` VARCHAR(191) NOT NULL,
    `email` VARCHAR(191) NULL,
    `userId` VARCHAR(191) NOT NULL,
    INDEX `Customer_userId_idx`(`userId`),
    PRIMARY KEY (`id`)
) DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;

-- CreateTable
CREATE TABLE `Invoice` (
    `id` VARCHAR(191) NOT NULL,
    `number` VARCHAR(191) NOT NULL,
    `total` DECIMAL(65,30) NOT NULL,
    `currency` VARCHAR(191) NOT NULL DEFAULT 'EUR',
    `dueAt` DATETIME(3) NOT NULL,
    `paid` BOOLEAN NOT NULL DEFAULT 0,
    `note` VARCHAR(191) NULL,
    `customerId` VARCHAR(191) NOT NULL,
    `userId` VARCHAR(191) NOT NULL,
    `createdAt` DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
    `updatedAt` DATETIME(3) NOT NULL,
    INDEX `Invoice_customerId_idx`(`customerId`),
    INDEX `Invoice_userId_idx`(`userId`),
    PRIMARY KEY (`id`)
) DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;

-- AddForeignKey
ALTER TABLE `Customer` ADD CONSTRAINT `Customer_userId_fkey` FOREIGN KEY (`userId`) REFERENCES `User`(`id`) ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE `Invoice` ADD CONSTRAINT `Invoice_customerId_fkey` FOREIGN KEY (`customerId`) REFERENCES `Customer`(`id`) ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE `Invoice` ADD CONSTRAINT `Invoice_userId_fkey` FOREIGN KEY (`userId`) REFERENCES `User`(`id`) ON DELETE RESTRICT ON UPDATE CASCADE;
