-- Saved views are private, and every query user can read the alerts dataset: a condition's row
-- keeps the view's id (view_id), never its name or filter. Rows written before: the id is taken
-- from alert_key (view:<id>), the name emptied, and the summary (which quoted the name and the
-- filter) rewritten from the row's own columns; the rollup's counts by name move to the empty name,
-- as the rows now say. The first two statements are drizzle-kit's; the rest is data.
ALTER TABLE "alerts" ALTER COLUMN "name" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "alerts" ADD COLUMN "view_id" text;--> statement-breakpoint
UPDATE "alerts" SET
  "view_id" = substr("alert_key", 6),
  "name" = NULL,
  "summary" = 'Saved view ' || substr("alert_key", 6) || CASE WHEN "event" = 'fired' THEN ' fired' ELSE ' resolved' END
    || ': ' || coalesce("metric", '?') || ' ' || coalesce("value"::text, '?') || ', ' || coalesce("op", '?') || ' ' || coalesce("threshold"::text, '?')
    || ' over the last ' || coalesce("window_minutes"::text, '?') || ' min (' || coalesce("dataset", '?') || ').'
WHERE "kind" = 'condition';--> statement-breakpoint
WITH "scrubbed" AS (
  DELETE FROM "alerts_rollup"
  WHERE "dimension" = 'name' AND "name" IS NOT NULL
    AND "name" NOT IN (SELECT DISTINCT "name" FROM "alerts" WHERE "name" IS NOT NULL)
  RETURNING "grain", "bucket", "rows"
)
INSERT INTO "alerts_rollup" ("dimension", "grain", "bucket", "rows")
SELECT 'name', "grain", "bucket", sum("rows") FROM "scrubbed" GROUP BY 1, 2, 3;
