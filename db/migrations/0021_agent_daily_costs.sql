CREATE TABLE `agent_daily_costs` (
	`day` date NOT NULL,
	`agent_id` varchar(36) NOT NULL,
	`cost_usd` double NOT NULL DEFAULT 0,
	CONSTRAINT `agent_daily_costs_day_agent_id_pk` PRIMARY KEY(`day`,`agent_id`)
);
--> statement-breakpoint
DROP INDEX `executions_budget` ON `executions`;--> statement-breakpoint
DROP INDEX `executions_agent_budget` ON `executions`;--> statement-breakpoint
-- What the agent records already cost, by the day they started: the counters start from the records.
INSERT INTO `agent_daily_costs` (`day`, `agent_id`, `cost_usd`)
SELECT DATE(`started_at`), COALESCE(`agent_id`, ''), SUM(`cost_usd`) FROM `executions`
WHERE `kind` = 'agent' AND `cost_usd` > 0 AND `started_at` IS NOT NULL
GROUP BY DATE(`started_at`), COALESCE(`agent_id`, '');