"""The API as a whole: openapi.yaml, the generated client, the web client's files, ETags
and CORS, the limits that keep one client from hurting the others, PgBouncer in front."""
