FROM python:3.11-slim
WORKDIR /app
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
# Freecell Solver's library: the fast path for hints in FreeCell, Baker's Game and
# Beleaguered Castle (service/fcsolve.py loads it when present)
RUN apt-get update \
    && apt-get install -y --no-install-recommends libfreecell-solver0 \
    && rm -rf /var/lib/apt/lists/*
COPY pyproject.toml README.md ./
COPY engine engine
COPY service service
COPY migrations migrations
COPY alembic.ini openapi.yaml ./
RUN pip install --no-cache-dir -e .
ENV HOST=0.0.0.0 PORT=8080
EXPOSE 8080
# migrates on start, then serves
CMD ["python", "-m", "service", "run"]
