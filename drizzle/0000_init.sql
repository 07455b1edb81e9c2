CREATE TABLE "gateway_dns" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "gateway_dns_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
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
	CONSTRAINT "gateway_dns_row_hash_unique" UNIQUE("row_hash")
);
--> statement-breakpoint
CREATE TABLE "gateway_http" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "gateway_http_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
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
	CONSTRAINT "gateway_http_row_hash_unique" UNIQUE("row_hash")
);
--> statement-breakpoint
CREATE TABLE "gateway_network" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "gateway_network_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
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
	CONSTRAINT "gateway_network_row_hash_unique" UNIQUE("row_hash")
);
--> statement-breakpoint
CREATE TABLE "gateway_sessions" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "gateway_sessions_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
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
	CONSTRAINT "gateway_sessions_row_hash_unique" UNIQUE("row_hash")
);
--> statement-breakpoint
CREATE TABLE "request_log" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "request_log_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
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
	"demo" boolean DEFAULT false NOT NULL
);
--> statement-breakpoint
CREATE INDEX "gateway_dns_time_idx" ON "gateway_dns" USING btree ("datetime","id");--> statement-breakpoint
CREATE INDEX "gateway_dns_decision_time_idx" ON "gateway_dns" USING btree ("resolver_decision","datetime");--> statement-breakpoint
CREATE INDEX "gateway_dns_query_name_idx" ON "gateway_dns" USING btree ("query_name");--> statement-breakpoint
CREATE INDEX "gateway_dns_email_idx" ON "gateway_dns" USING btree ("email");--> statement-breakpoint
CREATE INDEX "gateway_http_time_idx" ON "gateway_http" USING btree ("datetime","id");--> statement-breakpoint
CREATE INDEX "gateway_http_action_time_idx" ON "gateway_http" USING btree ("action","datetime");--> statement-breakpoint
CREATE INDEX "gateway_http_host_idx" ON "gateway_http" USING btree ("http_host");--> statement-breakpoint
CREATE INDEX "gateway_http_email_idx" ON "gateway_http" USING btree ("email");--> statement-breakpoint
CREATE INDEX "gateway_network_time_idx" ON "gateway_network" USING btree ("datetime","id");--> statement-breakpoint
CREATE INDEX "gateway_network_action_time_idx" ON "gateway_network" USING btree ("action","datetime");--> statement-breakpoint
CREATE INDEX "gateway_network_destination_ip_idx" ON "gateway_network" USING btree ("destination_ip");--> statement-breakpoint
CREATE INDEX "gateway_network_email_idx" ON "gateway_network" USING btree ("email");--> statement-breakpoint
CREATE INDEX "gateway_sessions_time_idx" ON "gateway_sessions" USING btree ("session_start_time","id");--> statement-breakpoint
CREATE INDEX "gateway_sessions_protocol_time_idx" ON "gateway_sessions" USING btree ("protocol","session_start_time");--> statement-breakpoint
CREATE INDEX "gateway_sessions_email_idx" ON "gateway_sessions" USING btree ("email");--> statement-breakpoint
CREATE INDEX "request_log_time_idx" ON "request_log" USING btree ("time","id");--> statement-breakpoint
CREATE INDEX "request_log_route_time_idx" ON "request_log" USING btree ("route","time");--> statement-breakpoint
CREATE INDEX "request_log_status_time_idx" ON "request_log" USING btree ("status","time");--> statement-breakpoint
CREATE INDEX "request_log_client_ip_idx" ON "request_log" USING btree ("client_ip");