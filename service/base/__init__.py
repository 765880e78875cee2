"""What every package stands on: settings, errors and problem+json, JSON in and out, typed
keys, metrics, logs, rate limits, the backend.
"""
