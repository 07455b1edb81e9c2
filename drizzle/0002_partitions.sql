-- The time-series tables become declarative partitions by day, each with a default partition, and
-- every dataset gets a rollup table (drizzle/schema.ts describes the columns and keys; this file was
-- written by hand because drizzle-kit cannot express PARTITION BY or a conversion that keeps the
-- rows; its snapshot records the resulting schema, so `drizzle-kit generate` stays clean).
--
-- Each table is renamed aside, recreated partitioned with the same columns, and its rows copied
-- with their ids into one partition per day that holds rows (lib/query/partitions.ts creates the
-- days ahead and drains the default partition from then on). Keys of a partitioned table must
-- include the partition key: the primary key becomes (time, id), row_hash is unique with the
-- time, and request_log gains (request_id, time) unique for idempotent writes: a request logged
-- twice before this migration (an insert retried after a lost acknowledgement) is kept once, the
-- copy with the lowest id. Rollups are then built from the copied rows, and query_ro is granted
-- SELECT on the new tables (a partition is read through its parent, under the parent's grant).
CREATE FUNCTION pg_temp.create_day_partitions(parent text, days date[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  day date;
BEGIN
  EXECUTE format('CREATE TABLE %I PARTITION OF %I DEFAULT', parent || '_default', parent);
  FOREACH day IN ARRAY days LOOP
    EXECUTE format('CREATE TABLE %I PARTITION OF %I FOR VALUES FROM (%L) TO (%L)', parent || '_p' || to_char(day, 'YYYYMMDD'), parent,
      to_char(day, 'YYYY-MM-DD') || ' 00:00:00+00', to_char(day + 1, 'YYYY-MM-DD') || ' 00:00:00+00');
  END LOOP;
END $$;
--> statement-breakpoint
ALTER TABLE "request_log" RENAME TO "request_log_unpartitioned";
--> statement-breakpoint
ALTER TABLE "request_log_unpartitioned" RENAME CONSTRAINT "request_log_pkey" TO "request_log_unpartitioned_pkey";
--> statement-breakpoint
DROP INDEX "request_log_time_idx", "request_log_route_time_idx", "request_log_status_time_idx", "request_log_client_ip_idx";
--> statement-breakpoint
ALTER SEQUENCE "request_log_id_seq" RENAME TO "request_log_unpartitioned_id_seq";
--> statement-breakpoint
CREATE TABLE "request_log" (
	"id" bigint NOT NULL GENERATED ALWAYS AS IDENTITY (sequence name "request_log_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"time" timestamp with time zone NOT NULL,
	"request_id" text NOT NULL,
	"method" text NOT NULL,
	"route" text NOT NULL,
	"query" text DEFAULT '' NOT NULL,
	"status" integer NOT NULL,
	"duration_ms" double precision NOT NULL,
	"client_ip" "inet",
	"country" text,
	"user_agent" text,
	"referrer" text,
	"api_key_present" boolean DEFAULT false NOT NULL,
	"rate_limited" boolean DEFAULT false NOT NULL,
	"mcp_tool" text,
	"demo" boolean DEFAULT false NOT NULL,
	CONSTRAINT "request_log_pkey" PRIMARY KEY("time","id"),
	CONSTRAINT "request_log_request_id_time_key" UNIQUE("request_id","time")
) PARTITION BY RANGE ("time");
--> statement-breakpoint
SELECT pg_temp.create_day_partitions('request_log', ARRAY(SELECT DISTINCT ("time" AT TIME ZONE 'UTC')::date FROM "request_log_unpartitioned"));
--> statement-breakpoint
INSERT INTO "request_log" OVERRIDING SYSTEM VALUE SELECT * FROM "request_log_unpartitioned" ORDER BY "id" ON CONFLICT ("request_id", "time") DO NOTHING;
--> statement-breakpoint
SELECT setval(pg_get_serial_sequence('request_log', 'id'), s.last_value, s.is_called) FROM "request_log_unpartitioned_id_seq" AS s;
--> statement-breakpoint
DROP TABLE "request_log_unpartitioned";
--> statement-breakpoint
CREATE INDEX "request_log_mcp_tool_time_idx" ON "request_log" USING btree ("mcp_tool","time");
--> statement-breakpoint
CREATE INDEX "request_log_rate_limited_time_idx" ON "request_log" USING btree ("time") WHERE rate_limited;
--> statement-breakpoint
CREATE INDEX "request_log_api_key_time_idx" ON "request_log" USING btree ("time") WHERE api_key_present;
--> statement-breakpoint
CREATE INDEX "request_log_slow_time_idx" ON "request_log" USING btree ("time") WHERE duration_ms > 1000;
--> statement-breakpoint
CREATE INDEX "request_log_route_time_idx" ON "request_log" USING btree ("route","time");
--> statement-breakpoint
CREATE INDEX "request_log_status_time_idx" ON "request_log" USING btree ("status","time");
--> statement-breakpoint
CREATE INDEX "request_log_client_ip_idx" ON "request_log" USING btree ("client_ip");
--> statement-breakpoint
GRANT SELECT ON "request_log" TO query_ro;
--> statement-breakpoint
CREATE TABLE "request_log_rollup" (
	"dimension" text NOT NULL,
	"grain" text NOT NULL,
	"bucket" timestamp with time zone NOT NULL,
	"status" integer,
	"route" text,
	"client_ip" "inet",
	"country" text,
	"user_agent" text,
	"mcp_tool" text,
	"rate_limited" boolean,
	"api_key_present" boolean,
	"duration_bucket" smallint,
	"rows" bigint NOT NULL,
	"server_errors" bigint NOT NULL,
	"client_errors" bigint NOT NULL,
	CONSTRAINT "request_log_rollup_key" UNIQUE NULLS NOT DISTINCT("dimension","grain","bucket","status","route","client_ip","country","user_agent","mcp_tool","rate_limited","api_key_present","duration_bucket")
) PARTITION BY RANGE ("bucket");
--> statement-breakpoint
SELECT pg_temp.create_day_partitions('request_log_rollup', ARRAY(SELECT DISTINCT ("time" AT TIME ZONE 'UTC')::date FROM "request_log"));
--> statement-breakpoint
WITH "minutes" AS (
  SELECT date_trunc('minute', "t", 'UTC') AS "bucket", CASE WHEN GROUPING("status") = 0 THEN 'status' WHEN GROUPING("route") = 0 THEN 'route' WHEN GROUPING("client_ip") = 0 THEN 'client_ip' WHEN GROUPING("country") = 0 THEN 'country' WHEN GROUPING("user_agent") = 0 THEN 'user_agent' WHEN GROUPING("mcp_tool") = 0 THEN 'mcp_tool' WHEN GROUPING("rate_limited") = 0 THEN 'rate_limited' WHEN GROUPING("api_key_present") = 0 THEN 'api_key_present' ELSE '' END AS "dimension", "status", "route", "client_ip", "country", "user_agent", "mcp_tool", "rate_limited", "api_key_present", "duration_bucket", count(*) AS "rows", count(*) FILTER (WHERE "status" >= 500) AS "server_errors", count(*) FILTER (WHERE "status" BETWEEN 400 AND 499) AS "client_errors"
  FROM (SELECT "time" AS "t", "status", left("route", 500) AS "route", "client_ip", left("country", 500) AS "country", left("user_agent", 500) AS "user_agent", left("mcp_tool", 500) AS "mcp_tool", "rate_limited", "api_key_present", CASE WHEN "duration_ms" < 1 THEN 0 ELSE least(81, 1 + floor(4 * ln("duration_ms") / ln(2))) END::smallint AS "duration_bucket" FROM "request_log") AS "batch"
  GROUP BY 1, GROUPING SETS (("duration_bucket"), ("status"), ("route"), ("client_ip"), ("country"), ("user_agent"), ("mcp_tool"), ("rate_limited"), ("api_key_present"))
), "rolled" AS (
  INSERT INTO "request_log_rollup" ("dimension", "grain", "bucket", "status", "route", "client_ip", "country", "user_agent", "mcp_tool", "rate_limited", "api_key_present", "duration_bucket", "rows", "server_errors", "client_errors")
  SELECT * FROM (
    SELECT "dimension", 'minute' AS "grain", "bucket", "status", "route", "client_ip", "country", "user_agent", "mcp_tool", "rate_limited", "api_key_present", "duration_bucket", "rows", "server_errors", "client_errors" FROM "minutes"
    UNION ALL
    SELECT "dimension", 'hour', date_trunc('hour', "bucket", 'UTC'), "status", "route", "client_ip", "country", "user_agent", "mcp_tool", "rate_limited", "api_key_present", "duration_bucket", sum("rows"), sum("server_errors"), sum("client_errors") FROM "minutes" GROUP BY 1, 3, "status", "route", "client_ip", "country", "user_agent", "mcp_tool", "rate_limited", "api_key_present", "duration_bucket"
  ) AS "deltas" ORDER BY "dimension", "grain", "bucket", "status", "route", "client_ip", "country", "user_agent", "mcp_tool", "rate_limited", "api_key_present", "duration_bucket"
  ON CONFLICT ("dimension", "grain", "bucket", "status", "route", "client_ip", "country", "user_agent", "mcp_tool", "rate_limited", "api_key_present", "duration_bucket") DO UPDATE SET "rows" = "request_log_rollup"."rows" + excluded."rows", "server_errors" = "request_log_rollup"."server_errors" + excluded."server_errors", "client_errors" = "request_log_rollup"."client_errors" + excluded."client_errors"
) SELECT count(*) AS "minutes" FROM "minutes";
--> statement-breakpoint
GRANT SELECT ON "request_log_rollup" TO query_ro;
--> statement-breakpoint
ALTER TABLE "gateway_dns" RENAME TO "gateway_dns_unpartitioned";
--> statement-breakpoint
ALTER TABLE "gateway_dns_unpartitioned" RENAME CONSTRAINT "gateway_dns_pkey" TO "gateway_dns_unpartitioned_pkey";
--> statement-breakpoint
DROP INDEX "gateway_dns_time_idx", "gateway_dns_decision_time_idx", "gateway_dns_query_name_idx", "gateway_dns_email_idx";
--> statement-breakpoint
ALTER SEQUENCE "gateway_dns_id_seq" RENAME TO "gateway_dns_unpartitioned_id_seq";
--> statement-breakpoint
CREATE TABLE "gateway_dns" (
	"id" bigint NOT NULL GENERATED ALWAYS AS IDENTITY (sequence name "gateway_dns_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"datetime" timestamp with time zone NOT NULL,
	"colo_code" text,
	"device_name" text,
	"email" text,
	"location" text,
	"policy_id" text,
	"policy_name" text,
	"protocol" text,
	"query_application_names" text,
	"query_category_names" text,
	"query_id" text,
	"query_name" text,
	"query_type_name" text,
	"rcode" integer,
	"redirect_target_uri" text,
	"resolved_ips" text,
	"resolver_decision" text,
	"response_time_ms" integer,
	"src_ip" "inet",
	"user_id" text,
	"demo" boolean DEFAULT false NOT NULL,
	"row_hash" text,
	CONSTRAINT "gateway_dns_pkey" PRIMARY KEY("datetime","id"),
	CONSTRAINT "gateway_dns_row_hash_key" UNIQUE("row_hash","datetime")
) PARTITION BY RANGE ("datetime");
--> statement-breakpoint
SELECT pg_temp.create_day_partitions('gateway_dns', ARRAY(SELECT DISTINCT ("datetime" AT TIME ZONE 'UTC')::date FROM "gateway_dns_unpartitioned"));
--> statement-breakpoint
INSERT INTO "gateway_dns" OVERRIDING SYSTEM VALUE SELECT * FROM "gateway_dns_unpartitioned" ORDER BY "id" ON CONFLICT ("row_hash", "datetime") DO NOTHING;
--> statement-breakpoint
SELECT setval(pg_get_serial_sequence('gateway_dns', 'id'), s.last_value, s.is_called) FROM "gateway_dns_unpartitioned_id_seq" AS s;
--> statement-breakpoint
DROP TABLE "gateway_dns_unpartitioned";
--> statement-breakpoint
CREATE INDEX "gateway_dns_rcode_time_idx" ON "gateway_dns" USING btree ("rcode","datetime");
--> statement-breakpoint
CREATE INDEX "gateway_dns_redirected_time_idx" ON "gateway_dns" USING btree ("datetime") WHERE redirect_target_uri IS NOT NULL;
--> statement-breakpoint
CREATE INDEX "gateway_dns_no_user_time_idx" ON "gateway_dns" USING btree ("datetime") WHERE user_id IS NULL;
--> statement-breakpoint
CREATE INDEX "gateway_dns_decision_time_idx" ON "gateway_dns" USING btree ("resolver_decision" text_pattern_ops,"datetime");
--> statement-breakpoint
CREATE INDEX "gateway_dns_query_name_idx" ON "gateway_dns" USING btree ("query_name");
--> statement-breakpoint
CREATE INDEX "gateway_dns_email_idx" ON "gateway_dns" USING btree ("email");
--> statement-breakpoint
GRANT SELECT ON "gateway_dns" TO query_ro;
--> statement-breakpoint
CREATE TABLE "gateway_dns_rollup" (
	"dimension" text NOT NULL,
	"grain" text NOT NULL,
	"bucket" timestamp with time zone NOT NULL,
	"resolver_decision" text,
	"query_name" text,
	"query_category_names" text,
	"query_application_names" text,
	"device_name" text,
	"email" text,
	"policy_name" text,
	"location" text,
	"colo_code" text,
	"query_type_name" text,
	"protocol" text,
	"rcode" integer,
	"rows" bigint NOT NULL,
	CONSTRAINT "gateway_dns_rollup_key" UNIQUE NULLS NOT DISTINCT("dimension","grain","bucket","resolver_decision","query_name","query_category_names","query_application_names","device_name","email","policy_name","location","colo_code","query_type_name","protocol","rcode")
) PARTITION BY RANGE ("bucket");
--> statement-breakpoint
SELECT pg_temp.create_day_partitions('gateway_dns_rollup', ARRAY(SELECT DISTINCT ("datetime" AT TIME ZONE 'UTC')::date FROM "gateway_dns"));
--> statement-breakpoint
WITH "minutes" AS (
  SELECT date_trunc('minute', "t", 'UTC') AS "bucket", CASE WHEN GROUPING("resolver_decision") = 0 THEN 'resolver_decision' WHEN GROUPING("query_name") = 0 THEN 'query_name' WHEN GROUPING("query_category_names") = 0 THEN 'query_category_names' WHEN GROUPING("query_application_names") = 0 THEN 'query_application_names' WHEN GROUPING("device_name") = 0 THEN 'device_name' WHEN GROUPING("email") = 0 THEN 'email' WHEN GROUPING("policy_name") = 0 THEN 'policy_name' WHEN GROUPING("location") = 0 THEN 'location' WHEN GROUPING("colo_code") = 0 THEN 'colo_code' WHEN GROUPING("query_type_name") = 0 THEN 'query_type_name' WHEN GROUPING("protocol") = 0 THEN 'protocol' WHEN GROUPING("rcode") = 0 THEN 'rcode' ELSE '' END AS "dimension", "resolver_decision", "query_name", "query_category_names", "query_application_names", "device_name", "email", "policy_name", "location", "colo_code", "query_type_name", "protocol", "rcode", count(*) AS "rows"
  FROM (SELECT "datetime" AS "t", left("resolver_decision", 500) AS "resolver_decision", left("query_name", 500) AS "query_name", left("query_category_names", 500) AS "query_category_names", left("query_application_names", 500) AS "query_application_names", left("device_name", 500) AS "device_name", left("email", 500) AS "email", left("policy_name", 500) AS "policy_name", left("location", 500) AS "location", left("colo_code", 500) AS "colo_code", left("query_type_name", 500) AS "query_type_name", left("protocol", 500) AS "protocol", "rcode" FROM "gateway_dns") AS "batch"
  GROUP BY 1, GROUPING SETS ((), ("resolver_decision"), ("query_name"), ("query_category_names"), ("query_application_names"), ("device_name"), ("email"), ("policy_name"), ("location"), ("colo_code"), ("query_type_name"), ("protocol"), ("rcode"))
), "rolled" AS (
  INSERT INTO "gateway_dns_rollup" ("dimension", "grain", "bucket", "resolver_decision", "query_name", "query_category_names", "query_application_names", "device_name", "email", "policy_name", "location", "colo_code", "query_type_name", "protocol", "rcode", "rows")
  SELECT * FROM (
    SELECT "dimension", 'minute' AS "grain", "bucket", "resolver_decision", "query_name", "query_category_names", "query_application_names", "device_name", "email", "policy_name", "location", "colo_code", "query_type_name", "protocol", "rcode", "rows" FROM "minutes"
    UNION ALL
    SELECT "dimension", 'hour', date_trunc('hour', "bucket", 'UTC'), "resolver_decision", "query_name", "query_category_names", "query_application_names", "device_name", "email", "policy_name", "location", "colo_code", "query_type_name", "protocol", "rcode", sum("rows") FROM "minutes" GROUP BY 1, 3, "resolver_decision", "query_name", "query_category_names", "query_application_names", "device_name", "email", "policy_name", "location", "colo_code", "query_type_name", "protocol", "rcode"
  ) AS "deltas" ORDER BY "dimension", "grain", "bucket", "resolver_decision", "query_name", "query_category_names", "query_application_names", "device_name", "email", "policy_name", "location", "colo_code", "query_type_name", "protocol", "rcode"
  ON CONFLICT ("dimension", "grain", "bucket", "resolver_decision", "query_name", "query_category_names", "query_application_names", "device_name", "email", "policy_name", "location", "colo_code", "query_type_name", "protocol", "rcode") DO UPDATE SET "rows" = "gateway_dns_rollup"."rows" + excluded."rows"
) SELECT count(*) AS "minutes" FROM "minutes";
--> statement-breakpoint
GRANT SELECT ON "gateway_dns_rollup" TO query_ro;
--> statement-breakpoint
ALTER TABLE "gateway_http" RENAME TO "gateway_http_unpartitioned";
--> statement-breakpoint
ALTER TABLE "gateway_http_unpartitioned" RENAME CONSTRAINT "gateway_http_pkey" TO "gateway_http_unpartitioned_pkey";
--> statement-breakpoint
DROP INDEX "gateway_http_time_idx", "gateway_http_action_time_idx", "gateway_http_host_idx", "gateway_http_email_idx";
--> statement-breakpoint
ALTER SEQUENCE "gateway_http_id_seq" RENAME TO "gateway_http_unpartitioned_id_seq";
--> statement-breakpoint
CREATE TABLE "gateway_http" (
	"id" bigint NOT NULL GENERATED ALWAYS AS IDENTITY (sequence name "gateway_http_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"datetime" timestamp with time zone NOT NULL,
	"action" text,
	"application_names" text,
	"category_names" text,
	"destination_ip" "inet",
	"destination_port" integer,
	"device_name" text,
	"email" text,
	"http_host" text,
	"http_method" text,
	"http_status_code" integer,
	"http_version" text,
	"policy_id" text,
	"policy_name" text,
	"redirect_target_uri" text,
	"referer" text,
	"request_id" text,
	"session_id" text,
	"source_internal_ip" "inet",
	"source_ip" "inet",
	"source_port" integer,
	"url" text,
	"user_agent" text,
	"user_id" text,
	"virtual_network_name" text,
	"demo" boolean DEFAULT false NOT NULL,
	"row_hash" text,
	CONSTRAINT "gateway_http_pkey" PRIMARY KEY("datetime","id"),
	CONSTRAINT "gateway_http_row_hash_key" UNIQUE("row_hash","datetime")
) PARTITION BY RANGE ("datetime");
--> statement-breakpoint
SELECT pg_temp.create_day_partitions('gateway_http', ARRAY(SELECT DISTINCT ("datetime" AT TIME ZONE 'UTC')::date FROM "gateway_http_unpartitioned"));
--> statement-breakpoint
INSERT INTO "gateway_http" OVERRIDING SYSTEM VALUE SELECT * FROM "gateway_http_unpartitioned" ORDER BY "id" ON CONFLICT ("row_hash", "datetime") DO NOTHING;
--> statement-breakpoint
SELECT setval(pg_get_serial_sequence('gateway_http', 'id'), s.last_value, s.is_called) FROM "gateway_http_unpartitioned_id_seq" AS s;
--> statement-breakpoint
DROP TABLE "gateway_http_unpartitioned";
--> statement-breakpoint
CREATE INDEX "gateway_http_destination_port_time_idx" ON "gateway_http" USING btree ("destination_port","datetime");
--> statement-breakpoint
CREATE INDEX "gateway_http_not_global_time_idx" ON "gateway_http" USING btree ("datetime") WHERE policy_name IS DISTINCT FROM 'Global Policy';
--> statement-breakpoint
CREATE INDEX "gateway_http_action_time_idx" ON "gateway_http" USING btree ("action","datetime");
--> statement-breakpoint
CREATE INDEX "gateway_http_host_idx" ON "gateway_http" USING btree ("http_host");
--> statement-breakpoint
CREATE INDEX "gateway_http_email_idx" ON "gateway_http" USING btree ("email");
--> statement-breakpoint
GRANT SELECT ON "gateway_http" TO query_ro;
--> statement-breakpoint
CREATE TABLE "gateway_http_rollup" (
	"dimension" text NOT NULL,
	"grain" text NOT NULL,
	"bucket" timestamp with time zone NOT NULL,
	"action" text,
	"http_host" text,
	"category_names" text,
	"application_names" text,
	"device_name" text,
	"email" text,
	"policy_name" text,
	"http_method" text,
	"http_version" text,
	"http_status_code" integer,
	"destination_port" integer,
	"rows" bigint NOT NULL,
	CONSTRAINT "gateway_http_rollup_key" UNIQUE NULLS NOT DISTINCT("dimension","grain","bucket","action","http_host","category_names","application_names","device_name","email","policy_name","http_method","http_version","http_status_code","destination_port")
) PARTITION BY RANGE ("bucket");
--> statement-breakpoint
SELECT pg_temp.create_day_partitions('gateway_http_rollup', ARRAY(SELECT DISTINCT ("datetime" AT TIME ZONE 'UTC')::date FROM "gateway_http"));
--> statement-breakpoint
WITH "minutes" AS (
  SELECT date_trunc('minute', "t", 'UTC') AS "bucket", CASE WHEN GROUPING("action") = 0 THEN 'action' WHEN GROUPING("http_host") = 0 THEN 'http_host' WHEN GROUPING("category_names") = 0 THEN 'category_names' WHEN GROUPING("application_names") = 0 THEN 'application_names' WHEN GROUPING("device_name") = 0 THEN 'device_name' WHEN GROUPING("email") = 0 THEN 'email' WHEN GROUPING("policy_name") = 0 THEN 'policy_name' WHEN GROUPING("http_method") = 0 THEN 'http_method' WHEN GROUPING("http_version") = 0 THEN 'http_version' WHEN GROUPING("http_status_code") = 0 THEN 'http_status_code' WHEN GROUPING("destination_port") = 0 THEN 'destination_port' ELSE '' END AS "dimension", "action", "http_host", "category_names", "application_names", "device_name", "email", "policy_name", "http_method", "http_version", "http_status_code", "destination_port", count(*) AS "rows"
  FROM (SELECT "datetime" AS "t", left("action", 500) AS "action", left("http_host", 500) AS "http_host", left("category_names", 500) AS "category_names", left("application_names", 500) AS "application_names", left("device_name", 500) AS "device_name", left("email", 500) AS "email", left("policy_name", 500) AS "policy_name", left("http_method", 500) AS "http_method", left("http_version", 500) AS "http_version", "http_status_code", "destination_port" FROM "gateway_http") AS "batch"
  GROUP BY 1, GROUPING SETS ((), ("action"), ("http_host"), ("category_names"), ("application_names"), ("device_name"), ("email"), ("policy_name"), ("http_method"), ("http_version"), ("http_status_code"), ("destination_port"))
), "rolled" AS (
  INSERT INTO "gateway_http_rollup" ("dimension", "grain", "bucket", "action", "http_host", "category_names", "application_names", "device_name", "email", "policy_name", "http_method", "http_version", "http_status_code", "destination_port", "rows")
  SELECT * FROM (
    SELECT "dimension", 'minute' AS "grain", "bucket", "action", "http_host", "category_names", "application_names", "device_name", "email", "policy_name", "http_method", "http_version", "http_status_code", "destination_port", "rows" FROM "minutes"
    UNION ALL
    SELECT "dimension", 'hour', date_trunc('hour', "bucket", 'UTC'), "action", "http_host", "category_names", "application_names", "device_name", "email", "policy_name", "http_method", "http_version", "http_status_code", "destination_port", sum("rows") FROM "minutes" GROUP BY 1, 3, "action", "http_host", "category_names", "application_names", "device_name", "email", "policy_name", "http_method", "http_version", "http_status_code", "destination_port"
  ) AS "deltas" ORDER BY "dimension", "grain", "bucket", "action", "http_host", "category_names", "application_names", "device_name", "email", "policy_name", "http_method", "http_version", "http_status_code", "destination_port"
  ON CONFLICT ("dimension", "grain", "bucket", "action", "http_host", "category_names", "application_names", "device_name", "email", "policy_name", "http_method", "http_version", "http_status_code", "destination_port") DO UPDATE SET "rows" = "gateway_http_rollup"."rows" + excluded."rows"
) SELECT count(*) AS "minutes" FROM "minutes";
--> statement-breakpoint
GRANT SELECT ON "gateway_http_rollup" TO query_ro;
--> statement-breakpoint
ALTER TABLE "gateway_network" RENAME TO "gateway_network_unpartitioned";
--> statement-breakpoint
ALTER TABLE "gateway_network_unpartitioned" RENAME CONSTRAINT "gateway_network_pkey" TO "gateway_network_unpartitioned_pkey";
--> statement-breakpoint
DROP INDEX "gateway_network_time_idx", "gateway_network_action_time_idx", "gateway_network_destination_ip_idx", "gateway_network_email_idx";
--> statement-breakpoint
ALTER SEQUENCE "gateway_network_id_seq" RENAME TO "gateway_network_unpartitioned_id_seq";
--> statement-breakpoint
CREATE TABLE "gateway_network" (
	"id" bigint NOT NULL GENERATED ALWAYS AS IDENTITY (sequence name "gateway_network_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"datetime" timestamp with time zone NOT NULL,
	"action" text,
	"application_names" text,
	"category_names" text,
	"destination_ip" "inet",
	"destination_port" integer,
	"detected_protocol" text,
	"device_name" text,
	"email" text,
	"policy_id" text,
	"policy_name" text,
	"session_id" text,
	"sni" text,
	"source_internal_ip" "inet",
	"source_ip" "inet",
	"source_port" integer,
	"transport" text,
	"virtual_network_name" text,
	"demo" boolean DEFAULT false NOT NULL,
	"row_hash" text,
	CONSTRAINT "gateway_network_pkey" PRIMARY KEY("datetime","id"),
	CONSTRAINT "gateway_network_row_hash_key" UNIQUE("row_hash","datetime")
) PARTITION BY RANGE ("datetime");
--> statement-breakpoint
SELECT pg_temp.create_day_partitions('gateway_network', ARRAY(SELECT DISTINCT ("datetime" AT TIME ZONE 'UTC')::date FROM "gateway_network_unpartitioned"));
--> statement-breakpoint
INSERT INTO "gateway_network" OVERRIDING SYSTEM VALUE SELECT * FROM "gateway_network_unpartitioned" ORDER BY "id" ON CONFLICT ("row_hash", "datetime") DO NOTHING;
--> statement-breakpoint
SELECT setval(pg_get_serial_sequence('gateway_network', 'id'), s.last_value, s.is_called) FROM "gateway_network_unpartitioned_id_seq" AS s;
--> statement-breakpoint
DROP TABLE "gateway_network_unpartitioned";
--> statement-breakpoint
CREATE INDEX "gateway_network_transport_time_idx" ON "gateway_network" USING btree ("transport","datetime");
--> statement-breakpoint
CREATE INDEX "gateway_network_action_time_idx" ON "gateway_network" USING btree ("action","datetime");
--> statement-breakpoint
CREATE INDEX "gateway_network_destination_ip_idx" ON "gateway_network" USING btree ("destination_ip");
--> statement-breakpoint
CREATE INDEX "gateway_network_email_idx" ON "gateway_network" USING btree ("email");
--> statement-breakpoint
GRANT SELECT ON "gateway_network" TO query_ro;
--> statement-breakpoint
CREATE TABLE "gateway_network_rollup" (
	"dimension" text NOT NULL,
	"grain" text NOT NULL,
	"bucket" timestamp with time zone NOT NULL,
	"action" text,
	"sni" text,
	"destination_ip" "inet",
	"destination_port" integer,
	"application_names" text,
	"device_name" text,
	"email" text,
	"policy_name" text,
	"transport" text,
	"detected_protocol" text,
	"rows" bigint NOT NULL,
	CONSTRAINT "gateway_network_rollup_key" UNIQUE NULLS NOT DISTINCT("dimension","grain","bucket","action","sni","destination_ip","destination_port","application_names","device_name","email","policy_name","transport","detected_protocol")
) PARTITION BY RANGE ("bucket");
--> statement-breakpoint
SELECT pg_temp.create_day_partitions('gateway_network_rollup', ARRAY(SELECT DISTINCT ("datetime" AT TIME ZONE 'UTC')::date FROM "gateway_network"));
--> statement-breakpoint
WITH "minutes" AS (
  SELECT date_trunc('minute', "t", 'UTC') AS "bucket", CASE WHEN GROUPING("action") = 0 THEN 'action' WHEN GROUPING("sni") = 0 THEN 'sni' WHEN GROUPING("destination_ip") = 0 THEN 'destination_ip' WHEN GROUPING("destination_port") = 0 THEN 'destination_port' WHEN GROUPING("application_names") = 0 THEN 'application_names' WHEN GROUPING("device_name") = 0 THEN 'device_name' WHEN GROUPING("email") = 0 THEN 'email' WHEN GROUPING("policy_name") = 0 THEN 'policy_name' WHEN GROUPING("transport") = 0 THEN 'transport' WHEN GROUPING("detected_protocol") = 0 THEN 'detected_protocol' ELSE '' END AS "dimension", "action", "sni", "destination_ip", "destination_port", "application_names", "device_name", "email", "policy_name", "transport", "detected_protocol", count(*) AS "rows"
  FROM (SELECT "datetime" AS "t", left("action", 500) AS "action", left("sni", 500) AS "sni", "destination_ip", "destination_port", left("application_names", 500) AS "application_names", left("device_name", 500) AS "device_name", left("email", 500) AS "email", left("policy_name", 500) AS "policy_name", left("transport", 500) AS "transport", left("detected_protocol", 500) AS "detected_protocol" FROM "gateway_network") AS "batch"
  GROUP BY 1, GROUPING SETS ((), ("action"), ("sni"), ("destination_ip"), ("destination_port"), ("application_names"), ("device_name"), ("email"), ("policy_name"), ("transport"), ("detected_protocol"))
), "rolled" AS (
  INSERT INTO "gateway_network_rollup" ("dimension", "grain", "bucket", "action", "sni", "destination_ip", "destination_port", "application_names", "device_name", "email", "policy_name", "transport", "detected_protocol", "rows")
  SELECT * FROM (
    SELECT "dimension", 'minute' AS "grain", "bucket", "action", "sni", "destination_ip", "destination_port", "application_names", "device_name", "email", "policy_name", "transport", "detected_protocol", "rows" FROM "minutes"
    UNION ALL
    SELECT "dimension", 'hour', date_trunc('hour', "bucket", 'UTC'), "action", "sni", "destination_ip", "destination_port", "application_names", "device_name", "email", "policy_name", "transport", "detected_protocol", sum("rows") FROM "minutes" GROUP BY 1, 3, "action", "sni", "destination_ip", "destination_port", "application_names", "device_name", "email", "policy_name", "transport", "detected_protocol"
  ) AS "deltas" ORDER BY "dimension", "grain", "bucket", "action", "sni", "destination_ip", "destination_port", "application_names", "device_name", "email", "policy_name", "transport", "detected_protocol"
  ON CONFLICT ("dimension", "grain", "bucket", "action", "sni", "destination_ip", "destination_port", "application_names", "device_name", "email", "policy_name", "transport", "detected_protocol") DO UPDATE SET "rows" = "gateway_network_rollup"."rows" + excluded."rows"
) SELECT count(*) AS "minutes" FROM "minutes";
--> statement-breakpoint
GRANT SELECT ON "gateway_network_rollup" TO query_ro;
--> statement-breakpoint
ALTER TABLE "gateway_sessions" RENAME TO "gateway_sessions_unpartitioned";
--> statement-breakpoint
ALTER TABLE "gateway_sessions_unpartitioned" RENAME CONSTRAINT "gateway_sessions_pkey" TO "gateway_sessions_unpartitioned_pkey";
--> statement-breakpoint
DROP INDEX "gateway_sessions_time_idx", "gateway_sessions_protocol_time_idx", "gateway_sessions_email_idx";
--> statement-breakpoint
ALTER SEQUENCE "gateway_sessions_id_seq" RENAME TO "gateway_sessions_unpartitioned_id_seq";
--> statement-breakpoint
CREATE TABLE "gateway_sessions" (
	"id" bigint NOT NULL GENERATED ALWAYS AS IDENTITY (sequence name "gateway_sessions_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"session_start_time" timestamp with time zone NOT NULL,
	"session_end_time" timestamp with time zone,
	"email" text,
	"device_name" text,
	"user_id" text,
	"device_id" text,
	"registration_id" text,
	"session_id" text,
	"source_ip" "inet",
	"source_internal_ip" "inet",
	"source_port" integer,
	"origin_ip" "inet",
	"origin_port" integer,
	"initial_origin_ip" "inet",
	"resolved_fqdn" text,
	"sni" text,
	"protocol" text,
	"detected_protocol" text,
	"bytes_sent" bigint,
	"bytes_received" bigint,
	"connection_reuse" boolean,
	"connection_close_reason" text,
	"client_tls_version" text,
	"client_tls_cipher" text,
	"client_tls_handshake_duration_ms" integer,
	"client_tcp_handshake_duration_ms" integer,
	"origin_tls_version" text,
	"origin_tls_cipher" text,
	"origin_tls_handshake_duration_ms" integer,
	"origin_tls_certificate_issuer" text,
	"origin_tls_certificate_validation_result" text,
	"egress_colo_name" text,
	"ingress_colo_name" text,
	"egress_ip" "inet",
	"egress_port" integer,
	"off_ramp" text,
	"destination_tunnel_id" text,
	"virtual_network_id" text,
	"rule_evaluation_duration_ms" integer,
	"demo" boolean DEFAULT false NOT NULL,
	"row_hash" text,
	CONSTRAINT "gateway_sessions_pkey" PRIMARY KEY("session_start_time","id"),
	CONSTRAINT "gateway_sessions_row_hash_key" UNIQUE("row_hash","session_start_time")
) PARTITION BY RANGE ("session_start_time");
--> statement-breakpoint
SELECT pg_temp.create_day_partitions('gateway_sessions', ARRAY(SELECT DISTINCT ("session_start_time" AT TIME ZONE 'UTC')::date FROM "gateway_sessions_unpartitioned"));
--> statement-breakpoint
INSERT INTO "gateway_sessions" OVERRIDING SYSTEM VALUE SELECT * FROM "gateway_sessions_unpartitioned" ORDER BY "id" ON CONFLICT ("row_hash", "session_start_time") DO NOTHING;
--> statement-breakpoint
SELECT setval(pg_get_serial_sequence('gateway_sessions', 'id'), s.last_value, s.is_called) FROM "gateway_sessions_unpartitioned_id_seq" AS s;
--> statement-breakpoint
DROP TABLE "gateway_sessions_unpartitioned";
--> statement-breakpoint
CREATE INDEX "gateway_sessions_client_tls_time_idx" ON "gateway_sessions" USING btree ("client_tls_version","session_start_time");
--> statement-breakpoint
CREATE INDEX "gateway_sessions_reused_time_idx" ON "gateway_sessions" USING btree ("session_start_time") WHERE connection_reuse;
--> statement-breakpoint
CREATE INDEX "gateway_sessions_protocol_time_idx" ON "gateway_sessions" USING btree ("protocol","session_start_time");
--> statement-breakpoint
CREATE INDEX "gateway_sessions_email_idx" ON "gateway_sessions" USING btree ("email");
--> statement-breakpoint
GRANT SELECT ON "gateway_sessions" TO query_ro;
--> statement-breakpoint
CREATE TABLE "gateway_sessions_rollup" (
	"dimension" text NOT NULL,
	"grain" text NOT NULL,
	"bucket" timestamp with time zone NOT NULL,
	"protocol" text,
	"sni" text,
	"device_name" text,
	"email" text,
	"egress_colo_name" text,
	"client_tls_version" text,
	"connection_close_reason" text,
	"connection_reuse" boolean,
	"rows" bigint NOT NULL,
	"bytes_sent" bigint NOT NULL,
	"bytes_received" bigint NOT NULL,
	CONSTRAINT "gateway_sessions_rollup_key" UNIQUE NULLS NOT DISTINCT("dimension","grain","bucket","protocol","sni","device_name","email","egress_colo_name","client_tls_version","connection_close_reason","connection_reuse")
) PARTITION BY RANGE ("bucket");
--> statement-breakpoint
SELECT pg_temp.create_day_partitions('gateway_sessions_rollup', ARRAY(SELECT DISTINCT ("session_start_time" AT TIME ZONE 'UTC')::date FROM "gateway_sessions"));
--> statement-breakpoint
WITH "minutes" AS (
  SELECT date_trunc('minute', "t", 'UTC') AS "bucket", CASE WHEN GROUPING("protocol") = 0 THEN 'protocol' WHEN GROUPING("sni") = 0 THEN 'sni' WHEN GROUPING("device_name") = 0 THEN 'device_name' WHEN GROUPING("email") = 0 THEN 'email' WHEN GROUPING("egress_colo_name") = 0 THEN 'egress_colo_name' WHEN GROUPING("client_tls_version") = 0 THEN 'client_tls_version' WHEN GROUPING("connection_close_reason") = 0 THEN 'connection_close_reason' WHEN GROUPING("connection_reuse") = 0 THEN 'connection_reuse' ELSE '' END AS "dimension", "protocol", "sni", "device_name", "email", "egress_colo_name", "client_tls_version", "connection_close_reason", "connection_reuse", count(*) AS "rows", coalesce(sum("bytes_sent"), 0) AS "bytes_sent", coalesce(sum("bytes_received"), 0) AS "bytes_received"
  FROM (SELECT "session_start_time" AS "t", left("protocol", 500) AS "protocol", left("sni", 500) AS "sni", left("device_name", 500) AS "device_name", left("email", 500) AS "email", left("egress_colo_name", 500) AS "egress_colo_name", left("client_tls_version", 500) AS "client_tls_version", left("connection_close_reason", 500) AS "connection_close_reason", "connection_reuse", "bytes_sent", "bytes_received" FROM "gateway_sessions") AS "batch"
  GROUP BY 1, GROUPING SETS ((), ("protocol"), ("sni"), ("device_name"), ("email"), ("egress_colo_name"), ("client_tls_version"), ("connection_close_reason"), ("connection_reuse"))
), "rolled" AS (
  INSERT INTO "gateway_sessions_rollup" ("dimension", "grain", "bucket", "protocol", "sni", "device_name", "email", "egress_colo_name", "client_tls_version", "connection_close_reason", "connection_reuse", "rows", "bytes_sent", "bytes_received")
  SELECT * FROM (
    SELECT "dimension", 'minute' AS "grain", "bucket", "protocol", "sni", "device_name", "email", "egress_colo_name", "client_tls_version", "connection_close_reason", "connection_reuse", "rows", "bytes_sent", "bytes_received" FROM "minutes"
    UNION ALL
    SELECT "dimension", 'hour', date_trunc('hour', "bucket", 'UTC'), "protocol", "sni", "device_name", "email", "egress_colo_name", "client_tls_version", "connection_close_reason", "connection_reuse", sum("rows"), sum("bytes_sent"), sum("bytes_received") FROM "minutes" GROUP BY 1, 3, "protocol", "sni", "device_name", "email", "egress_colo_name", "client_tls_version", "connection_close_reason", "connection_reuse"
  ) AS "deltas" ORDER BY "dimension", "grain", "bucket", "protocol", "sni", "device_name", "email", "egress_colo_name", "client_tls_version", "connection_close_reason", "connection_reuse"
  ON CONFLICT ("dimension", "grain", "bucket", "protocol", "sni", "device_name", "email", "egress_colo_name", "client_tls_version", "connection_close_reason", "connection_reuse") DO UPDATE SET "rows" = "gateway_sessions_rollup"."rows" + excluded."rows", "bytes_sent" = "gateway_sessions_rollup"."bytes_sent" + excluded."bytes_sent", "bytes_received" = "gateway_sessions_rollup"."bytes_received" + excluded."bytes_received"
) SELECT count(*) AS "minutes" FROM "minutes";
--> statement-breakpoint
GRANT SELECT ON "gateway_sessions_rollup" TO query_ro;
