-- A run with config.delegateTo that finishes asks whether it delegated already
-- (db/executions-store.ts#delegatedExecutionOf): without an index that was a scan of every record.
CREATE INDEX `executions_delegated_from` ON `executions` (`delegated_from`);
