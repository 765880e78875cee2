FROM python:3.11-slim
WORKDIR /app
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
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
