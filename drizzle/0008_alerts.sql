-- Alerts (lib/alerts): saved views may carry a condition (saved_query.condition), and the alerts
-- dataset keeps every firing, resolution and domain-posture change with its webhook delivery state.
-- Partitioned by day like the other datasets (drizzle/0002_partitions.sql, 0004_job_history.sql):
-- drizzle-kit cannot express PARTITION BY, so its output was edited by hand; the snapshot records
-- the same columns and keys, so `drizzle-kit generate` stays clean. query_ro may SELECT the table
-- and its rollup, as 0001 and 0004 grant it the others.
CREATE TABLE "alerts" (
	"id" bigint GENERATED ALWAYS AS IDENTITY (sequence name "alerts_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"at" timestamp with time zone NOT NULL,
	"kind" text NOT NULL,
	"event" text NOT NULL,
	"alert_key" text NOT NULL,
	"name" text NOT NULL,
	"dataset" text,
	"metric" text,
	"op" text,
	"threshold" double precision,
	"value" double precision,
	"window_minutes" integer,
	"summary" text NOT NULL,
	"delivery" text NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"delivered_at" timestamp with time zone,
	"last_error" text,
	"attempt_log" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"demo" boolean DEFAULT false NOT NULL,
	CONSTRAINT "alerts_pkey" PRIMARY KEY("at","id")
) PARTITION BY RANGE ("at");
--> statement-breakpoint
CREATE TABLE "alerts_default" PARTITION OF "alerts" DEFAULT;
--> statement-breakpoint
CREATE TABLE "alerts_rollup" (
	"dimension" text NOT NULL,
	"grain" text NOT NULL,
	"bucket" timestamp with time zone NOT NULL,
	"event" text,
	"kind" text,
	"name" text,
	"rows" bigint NOT NULL,
	CONSTRAINT "alerts_rollup_key" UNIQUE NULLS NOT DISTINCT("dimension","grain","bucket","event","kind","name")
) PARTITION BY RANGE ("bucket");
--> statement-breakpoint
CREATE TABLE "alerts_rollup_default" PARTITION OF "alerts_rollup" DEFAULT;
--> statement-breakpoint
ALTER TABLE "saved_query" ADD COLUMN "condition" jsonb;--> statement-breakpoint
CREATE INDEX "alerts_key_time_idx" ON "alerts" USING btree ("alert_key","at");--> statement-breakpoint
CREATE INDEX "alerts_delivery_time_idx" ON "alerts" USING btree ("delivery","at");--> statement-breakpoint
CREATE INDEX "alerts_event_time_idx" ON "alerts" USING btree ("event","at");--> statement-breakpoint
CREATE INDEX "alerts_pending_time_idx" ON "alerts" USING btree ("at") WHERE delivery = 'pending';--> statement-breakpoint
GRANT SELECT ON "alerts", "alerts_rollup" TO query_ro;
