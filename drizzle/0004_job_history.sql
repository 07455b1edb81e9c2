-- Job history (lib/jobs): job_runs (one row per run of a scheduled operator job) and
-- domain_checks (the platform domains' graded checks, one row per domain and check per run), each
-- with its rollup. Partitioned by day like the other datasets (drizzle/0002_partitions.sql): the
-- tables are created partitioned with a default partition, and lib/query/partitions.ts creates
-- the days ahead and drops expired ones. drizzle-kit cannot express PARTITION BY, so its output was
-- edited by hand; the snapshot records the same columns and keys, so `drizzle-kit generate` stays
-- clean. query_ro may SELECT both tables and their rollups, as 0001 grants it the others.
CREATE TABLE "domain_checks" (
	"id" bigint GENERATED ALWAYS AS IDENTITY (sequence name "domain_checks_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"checked_at" timestamp with time zone NOT NULL,
	"domain" text NOT NULL,
	"check_name" text NOT NULL,
	"grade" text,
	"score" integer,
	"status" text NOT NULL,
	"findings" text DEFAULT '' NOT NULL,
	"previous_status" text,
	"changed" boolean DEFAULT false NOT NULL,
	"change" text,
	"demo" boolean DEFAULT false NOT NULL,
	CONSTRAINT "domain_checks_pkey" PRIMARY KEY("checked_at","id")
) PARTITION BY RANGE ("checked_at");
--> statement-breakpoint
CREATE TABLE "domain_checks_default" PARTITION OF "domain_checks" DEFAULT;
--> statement-breakpoint
CREATE TABLE "domain_checks_rollup" (
	"dimension" text NOT NULL,
	"grain" text NOT NULL,
	"bucket" timestamp with time zone NOT NULL,
	"changed" boolean,
	"change" text,
	"grade" text,
	"status" text,
	"domain" text,
	"check_name" text,
	"rows" bigint NOT NULL,
	CONSTRAINT "domain_checks_rollup_key" UNIQUE NULLS NOT DISTINCT("dimension","grain","bucket","changed","change","grade","status","domain","check_name")
) PARTITION BY RANGE ("bucket");
--> statement-breakpoint
CREATE TABLE "domain_checks_rollup_default" PARTITION OF "domain_checks_rollup" DEFAULT;
--> statement-breakpoint
CREATE TABLE "job_runs" (
	"id" bigint GENERATED ALWAYS AS IDENTITY (sequence name "job_runs_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"started_at" timestamp with time zone NOT NULL,
	"ended_at" timestamp with time zone NOT NULL,
	"job" text NOT NULL,
	"trigger" text NOT NULL,
	"outcome" text NOT NULL,
	"duration_ms" double precision NOT NULL,
	"counts" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"summary" text,
	"error" text,
	"demo" boolean DEFAULT false NOT NULL,
	CONSTRAINT "job_runs_pkey" PRIMARY KEY("started_at","id")
) PARTITION BY RANGE ("started_at");
--> statement-breakpoint
CREATE TABLE "job_runs_default" PARTITION OF "job_runs" DEFAULT;
--> statement-breakpoint
CREATE TABLE "job_runs_rollup" (
	"dimension" text NOT NULL,
	"grain" text NOT NULL,
	"bucket" timestamp with time zone NOT NULL,
	"outcome" text,
	"job" text,
	"trigger" text,
	"rows" bigint NOT NULL,
	CONSTRAINT "job_runs_rollup_key" UNIQUE NULLS NOT DISTINCT("dimension","grain","bucket","outcome","job","trigger")
) PARTITION BY RANGE ("bucket");
--> statement-breakpoint
CREATE TABLE "job_runs_rollup_default" PARTITION OF "job_runs_rollup" DEFAULT;
--> statement-breakpoint
CREATE INDEX "domain_checks_domain_check_time_idx" ON "domain_checks" USING btree ("domain","check_name","checked_at");--> statement-breakpoint
CREATE INDEX "domain_checks_check_time_idx" ON "domain_checks" USING btree ("check_name","checked_at");--> statement-breakpoint
CREATE INDEX "domain_checks_status_time_idx" ON "domain_checks" USING btree ("status","checked_at");--> statement-breakpoint
CREATE INDEX "domain_checks_grade_time_idx" ON "domain_checks" USING btree ("grade","checked_at");--> statement-breakpoint
CREATE INDEX "domain_checks_changed_time_idx" ON "domain_checks" USING btree ("checked_at") WHERE changed;--> statement-breakpoint
CREATE INDEX "job_runs_job_time_idx" ON "job_runs" USING btree ("job","started_at");--> statement-breakpoint
CREATE INDEX "job_runs_outcome_time_idx" ON "job_runs" USING btree ("outcome","started_at");--> statement-breakpoint
CREATE INDEX "job_runs_trigger_time_idx" ON "job_runs" USING btree ("trigger","started_at");--> statement-breakpoint
GRANT SELECT ON "job_runs", "job_runs_rollup", "domain_checks", "domain_checks_rollup" TO query_ro;
