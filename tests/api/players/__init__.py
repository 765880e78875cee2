"""Players through the API: devices and tokens, names, friends, stats, the export."""
