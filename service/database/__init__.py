"""PostgreSQL: the DSN and the embedded server, the pool and its connections, the event
store (one round trip a write, group commit), the schema, migrations.
"""
