CREATE TABLE "query_history" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "query_history_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"owner" text NOT NULL,
	"page" text NOT NULL,
	"view" text NOT NULL,
	"ran_at" timestamp with time zone DEFAULT now() NOT NULL,
	"row_count" bigint,
	"elapsed_ms" double precision,
	"error" text
);
--> statement-breakpoint
CREATE TABLE "saved_query" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"owner" text NOT NULL,
	"name" text NOT NULL,
	"page" text NOT NULL,
	"view" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "query_history_owner_idx" ON "query_history" USING btree ("owner","id");--> statement-breakpoint
CREATE UNIQUE INDEX "saved_query_owner_name_idx" ON "saved_query" USING btree ("owner","name");