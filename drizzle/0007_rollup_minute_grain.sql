-- Rollups keep the minute grain for the totals and low-cardinality columns only (lib/datasets/storage/rollups.ts):
-- the minute rows of the hour-only dimensions go (their hour rows stay, uncapped: exact), and the
-- request log's minute totals become one row per minute (the duration histogram is read per hour).
-- The tables keep their shape; new rows follow the definitions' rollup specs.
--> statement-breakpoint
INSERT INTO "request_log_rollup" ("dimension", "grain", "bucket", "rows", "server_errors", "client_errors")
SELECT '', 'minute', "bucket", sum("rows"), sum("server_errors"), sum("client_errors") FROM "request_log_rollup"
WHERE "dimension" = '' AND "grain" = 'minute' AND "duration_bucket" IS NOT NULL GROUP BY "bucket"
ON CONFLICT ("dimension", "grain", "bucket", "status", "route", "client_ip", "country", "user_agent", "mcp_tool", "rate_limited", "api_key_present", "duration_bucket") DO UPDATE SET "rows" = "request_log_rollup"."rows" + excluded."rows", "server_errors" = "request_log_rollup"."server_errors" + excluded."server_errors", "client_errors" = "request_log_rollup"."client_errors" + excluded."client_errors";
--> statement-breakpoint
DELETE FROM "request_log_rollup" WHERE "dimension" = '' AND "grain" = 'minute' AND "duration_bucket" IS NOT NULL;
--> statement-breakpoint
DELETE FROM "request_log_rollup" WHERE "grain" = 'minute' AND "dimension" IN ('route', 'client_ip', 'country', 'user_agent', 'mcp_tool');
--> statement-breakpoint
DELETE FROM "gateway_dns_rollup" WHERE "grain" = 'minute' AND "dimension" IN ('query_name', 'query_category_names', 'query_application_names', 'device_name', 'email');
--> statement-breakpoint
DELETE FROM "gateway_http_rollup" WHERE "grain" = 'minute' AND "dimension" IN ('http_host', 'category_names', 'application_names', 'device_name', 'email');
--> statement-breakpoint
DELETE FROM "gateway_network_rollup" WHERE "grain" = 'minute' AND "dimension" IN ('sni', 'destination_ip', 'destination_port', 'application_names', 'device_name', 'email');
--> statement-breakpoint
DELETE FROM "gateway_sessions_rollup" WHERE "grain" = 'minute' AND "dimension" IN ('sni', 'device_name', 'email');
