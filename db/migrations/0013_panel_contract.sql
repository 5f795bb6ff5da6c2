ALTER TABLE `agent_versions` ADD `changelog` varchar(500) DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE `agent_versions` ADD `changed_fields` longtext DEFAULT ('[]') NOT NULL;--> statement-breakpoint
ALTER TABLE `agents` ADD `tags` longtext DEFAULT ('[]') NOT NULL;--> statement-breakpoint
ALTER TABLE `agents` ADD `status` varchar(16) DEFAULT 'active' NOT NULL;--> statement-breakpoint
ALTER TABLE `agents` ADD `allowed_tools` varchar(2000) DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE `agents` ADD `retry_on_failure` boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `agents` ADD `max_retries` int DEFAULT 3 NOT NULL;--> statement-breakpoint
ALTER TABLE `agents` ADD `delegate_to` varchar(36);--> statement-breakpoint
ALTER TABLE `executions` ADD `parent_session_id` varchar(128);--> statement-breakpoint
ALTER TABLE `executions` ADD `delegated_from` varchar(36);--> statement-breakpoint
ALTER TABLE `executions` ADD `delegation_depth` int DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `executions` ADD `result` mediumtext;--> statement-breakpoint
ALTER TABLE `executions` ADD `exit_code` int;--> statement-breakpoint
ALTER TABLE `executions` ADD `attempt` int DEFAULT 1 NOT NULL;--> statement-breakpoint
-- The admin panel's status values (docs/executions.md): stored records keep their meaning under the new names.
UPDATE `executions` SET `status` = 'error' WHERE `status` = 'failed';--> statement-breakpoint
UPDATE `executions` SET `status` = 'canceled' WHERE `status` = 'cancelled';--> statement-breakpoint
-- A continue record resumed its parent's session.
UPDATE `executions` AS `child` JOIN `executions` AS `parent` ON `child`.`parent_execution_id` = `parent`.`id` SET `child`.`parent_session_id` = `parent`.`session_id` WHERE `child`.`source` = 'continue' AND `child`.`parent_session_id` IS NULL;--> statement-breakpoint
-- Versions written before changelogs: the first one created the agent, the others updated it.
UPDATE `agent_versions` SET `changelog` = IF(`version` = 1, 'created', 'updated') WHERE `changelog` = '';
--> statement-breakpoint
UPDATE `notifications` SET `kind` = 'execution.error' WHERE `kind` = 'execution.failed';--> statement-breakpoint
UPDATE `notifications` SET `kind` = 'execution.canceled' WHERE `kind` = 'execution.cancelled';
