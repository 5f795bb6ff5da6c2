-- Which coding-agent CLI an agent runs (domain/agent-clis.ts; docs/agents.md): every agent stored before ran Claude Code.
ALTER TABLE `agents` ADD `cli` varchar(16) DEFAULT 'claude-code' NOT NULL;--> statement-breakpoint
-- The CLI an agent run used, taken from its agent when the record is created: every run recorded before used Claude Code.
ALTER TABLE `executions` ADD `cli` varchar(16) DEFAULT 'claude-code';--> statement-breakpoint
-- A pipeline run's record runs no CLI itself (its steps' records name theirs).
UPDATE `executions` SET `cli` = NULL WHERE `kind` = 'pipeline';
