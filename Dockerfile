# The image operators run: the service installed from its wheel (no embedded PostgreSQL:
# give it DATABASE_URL), as a user without privileges, with a health check.
FROM python:3.11-slim AS build
WORKDIR /src
COPY pyproject.toml README.md ./
COPY engine engine
COPY service service
RUN pip wheel --no-cache-dir --no-deps --wheel-dir /wheels .

FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
# Freecell Solver's library: the fast path for hints in FreeCell, Baker's Game and
# Beleaguered Castle (service/solver/fcsolve.py loads it when present)
RUN apt-get update \
    && apt-get install -y --no-install-recommends libfreecell-solver0 \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --create-home --uid 10001 solitaire
COPY --from=build /wheels /wheels
RUN pip install --no-cache-dir /wheels/*.whl && rm -rf /wheels
WORKDIR /app
COPY alembic.ini openapi.yaml ./
COPY migrations migrations
USER solitaire
# WORKERS: service processes sharing the port (unset: one per core, per two when the database is local, at most 4)
ENV HOST=0.0.0.0 PORT=8080
# the link codes' key, unless LINK_CODE_KEY is set, is kept beside DATA_DIR: somewhere this
# user may write (several containers of one service must share LINK_CODE_KEY)
ENV DATA_DIR=/home/solitaire/data
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
    CMD ["python", "-c", "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:' + os.environ.get('PORT', '8080') + '/healthz', timeout=2)"]
# migrates on start, then serves
CMD ["python", "-m", "service", "run"]
