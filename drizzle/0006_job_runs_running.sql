ALTER TABLE "job_runs" ALTER COLUMN "ended_at" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "job_runs" ALTER COLUMN "duration_ms" DROP NOT NULL;