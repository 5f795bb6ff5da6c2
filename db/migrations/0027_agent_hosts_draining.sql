-- An agents worker that drains after SIGTERM says so (db/agent-hosts-store.ts#markAgentHostDraining): it keeps
-- beating for its running runs, and a new run goes to another live host holding its directory when there is one.
ALTER TABLE `agent_hosts` ADD `draining` boolean DEFAULT false NOT NULL;
