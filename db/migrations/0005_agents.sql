CREATE TABLE `agent_secrets` (
	`agent_id` varchar(36) NOT NULL,
	`name` varchar(128) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
	`ciphertext` mediumblob NOT NULL,
	`iv` varbinary(16) NOT NULL,
	`auth_tag` varbinary(16) NOT NULL,
	`created_at` datetime(3) NOT NULL,
	CONSTRAINT `agent_secrets_agent_id_name_pk` PRIMARY KEY(`agent_id`,`name`)
);
--> statement-breakpoint
CREATE TABLE `agent_versions` (
	`agent_id` varchar(36) NOT NULL,
	`version` int NOT NULL,
	`data` longtext NOT NULL,
	`created_at` datetime(3) NOT NULL,
	CONSTRAINT `agent_versions_agent_id_version_pk` PRIMARY KEY(`agent_id`,`version`)
);
--> statement-breakpoint
CREATE TABLE `agents` (
	`id` varchar(36) NOT NULL,
	`name` varchar(100) NOT NULL,
	`description` text NOT NULL,
	`model` varchar(100),
	`instructions` mediumtext NOT NULL,
	`working_directory` varchar(1000),
	`permission_mode` varchar(32) NOT NULL DEFAULT 'bypassPermissions',
	`max_turns` int NOT NULL,
	`version` int NOT NULL DEFAULT 1,
	`created_at` datetime(3) NOT NULL,
	`updated_at` datetime(3) NOT NULL,
	CONSTRAINT `agents_id` PRIMARY KEY(`id`),
	CONSTRAINT `agents_name` UNIQUE(`name`)
);
--> statement-breakpoint
ALTER TABLE `agent_secrets` ADD CONSTRAINT `agent_secrets_agent_id_agents_id_fk` FOREIGN KEY (`agent_id`) REFERENCES `agents`(`id`) ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE `agent_versions` ADD CONSTRAINT `agent_versions_agent_id_agents_id_fk` FOREIGN KEY (`agent_id`) REFERENCES `agents`(`id`) ON DELETE cascade ON UPDATE no action;