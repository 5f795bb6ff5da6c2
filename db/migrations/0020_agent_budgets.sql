ALTER TABLE `agents` ADD `daily_budget_usd` double;--> statement-breakpoint
ALTER TABLE `webhook_deliveries` ADD `refused` varchar(20);--> statement-breakpoint
CREATE INDEX `executions_budget` ON `executions` (`kind`,`started_at`,`agent_id`,`cost_usd`);--> statement-breakpoint
CREATE INDEX `executions_agent_budget` ON `executions` (`agent_id`,`kind`,`started_at`,`cost_usd`);