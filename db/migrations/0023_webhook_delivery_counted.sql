ALTER TABLE `webhook_deliveries` ADD `counted` boolean DEFAULT false NOT NULL;--> statement-breakpoint
-- Calls recorded before this column started their run and were counted; refused ones were not.
UPDATE `webhook_deliveries` SET `counted` = true WHERE `refused` IS NULL;