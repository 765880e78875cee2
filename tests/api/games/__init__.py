"""Games through the API: moves, batches, offline times, concurrent writers, records
judged by the log on every instance, grades of the deals."""
