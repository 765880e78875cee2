"""The database: the event store, the schema and its migrations, the lines instances
send each other through NOTIFY."""
