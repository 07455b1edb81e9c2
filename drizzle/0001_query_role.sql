-- query_ro: the role every query-application statement runs under (SET LOCAL ROLE inside a READ
-- ONLY transaction). It can log in nowhere and can only SELECT the dataset tables: no other table,
-- no writes, no schema changes. Roles are cluster-wide, so creation tolerates a role made by
-- another database of the same cluster (or a concurrent migration).
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'query_ro') THEN
    CREATE ROLE query_ro NOLOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOINHERIT NOREPLICATION;
  END IF;
EXCEPTION WHEN duplicate_object THEN NULL;
END $$;
--> statement-breakpoint
-- The application's login role must be a member to SET ROLE to it (superusers need not be).
DO $$
BEGIN
  IF NOT (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) THEN
    EXECUTE format('GRANT query_ro TO %I', current_user);
  END IF;
END $$;
--> statement-breakpoint
GRANT USAGE ON SCHEMA public TO query_ro;
--> statement-breakpoint
GRANT SELECT ON request_log, gateway_dns, gateway_http, gateway_network, gateway_sessions TO query_ro;
