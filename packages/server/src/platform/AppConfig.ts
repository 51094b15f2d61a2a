import { Config, Effect, LogLevel } from "effect"

/** Everything the service reads from its environment, in one place (README "Configuration"). */
export class AppConfig extends Effect.Service<AppConfig>()("AppConfig", {
  effect: Effect.gen(function*() {
    return {
      port: yield* Config.port("PORT").pipe(Config.withDefault(3000)),
      host: yield* Config.string("HOST").pipe(Config.withDefault("0.0.0.0")),
      databaseUrl: yield* Config.option(Config.redacted("DATABASE_URL")),
      redisUrl: yield* Config.option(Config.redacted("REDIS_URL")),
      /** Prefix of every key this service writes to Redis, so deployments (and test runs) can share one server. */
      redisKeyPrefix: yield* Config.string("REDIS_KEY_PREFIX").pipe(Config.withDefault("timebank:")),
      dataDir: yield* Config.string("DATA_DIR").pipe(Config.withDefault("./.data")),
      /** Where the local file store keeps uploads; unset → `<DATA_DIR>/uploads` (FileStore). */
      uploadsDir: yield* Config.option(Config.string("UPLOADS_DIR")),
      embeddedDbPort: yield* Config.port("EMBEDDED_DB_PORT").pipe(Config.withDefault(54329)),
      dbPoolSize: yield* Config.integer("DB_POOL_SIZE").pipe(Config.withDefault(10)),
      tenantRls: yield* Config.boolean("DB_TENANT_RLS").pipe(Config.withDefault(false)),
      baseDomain: yield* Config.option(Config.string("BASE_DOMAIN")),
      trustProxy: yield* Config.boolean("TRUST_PROXY").pipe(Config.withDefault(false)),
      clusterMode: yield* Config.literal("single", "socket")("CLUSTER_MODE").pipe(
        Config.withDefault("single" as const)
      ),
      runnerHost: yield* Config.string("RUNNER_HOST").pipe(Config.withDefault("localhost")),
      runnerPort: yield* Config.port("RUNNER_PORT").pipe(Config.withDefault(34431)),
      outboxPollInterval: yield* Config.duration("OUTBOX_POLL_INTERVAL").pipe(Config.withDefault("250 millis")),
      logLevel: yield* Config.logLevel("LOG_LEVEL").pipe(Config.withDefault(LogLevel.Info)),
      /** `json`: one JSON object per log line (Logging.ts); `text` (default): the human-readable format. */
      logFormat: yield* Config.literal("text", "json")("LOG_FORMAT").pipe(Config.withDefault("text" as const)),
      /** OTLP/HTTP (JSON) collector base URL for traces and metrics (Telemetry.ts); unset → tracing is off. */
      otelEndpoint: yield* Config.option(Config.string("OTEL_EXPORTER_OTLP_ENDPOINT")),
      otelServiceName: yield* Config.string("OTEL_SERVICE_NAME").pipe(Config.withDefault("timebank")),
      /** Standard OTel knobs (milliseconds): span batch delay and metric export interval. */
      otelSpanDelayMs: yield* Config.integer("OTEL_BSP_SCHEDULE_DELAY").pipe(Config.withDefault(5000)),
      otelMetricIntervalMs: yield* Config.integer("OTEL_METRIC_EXPORT_INTERVAL").pipe(Config.withDefault(60000)),
      seedDemo: yield* Config.boolean("SEED_DEMO").pipe(Config.withDefault(true)),
      legacyJwtSecret: yield* Config.option(Config.redacted("LEGACY_JWT_SECRET")),
      cookieSecure: yield* Config.boolean("COOKIE_SECURE").pipe(Config.withDefault(false)),
      maxBodyBytes: yield* Config.integer("MAX_BODY_BYTES").pipe(Config.withDefault(1024 * 1024)),
      /** Outgoing mail server (`smtp://host:port`, `smtps://…`, `?ignoreTLS=true`); unset → `.eml` files. */
      smtpUrl: yield* Config.option(Config.redacted("SMTP_URL")),
      mailFrom: yield* Config.string("MAIL_FROM").pipe(Config.withDefault("timebank <no-reply@localhost>")),
      /** Where people reach the service: the base of links in e-mails (unsubscribe, password reset). */
      publicUrl: yield* Config.string("PUBLIC_URL").pipe(Config.withDefault("http://localhost:3000")),
      /** A Nominatim-compatible geocoder (`{url}/search?q=…&format=json&limit=1`); unset → the offline gazetteer. */
      geocoderUrl: yield* Config.option(Config.string("GEOCODER_URL"))
    }
  })
}) {}
