# Docent: a multi-stage build. The first stage installs everything and compiles TypeScript; the image
# keeps only the compiled server, production dependencies and the bundled docs, and runs as `node`.

FROM node:20-bookworm-slim AS build
WORKDIR /app
# better-sqlite3 downloads a prebuilt binary; these build it from source where none matches.
RUN apt-get update \
  && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts ./scripts
COPY src ./src
COPY widget ./widget
COPY console-ui ./console-ui
RUN npm run build && npm prune --omit=dev --no-audit --no-fund

FROM node:20-bookworm-slim
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    DATABASE_URL=sqlite:/data/docent.db \
    DOCENT_DOCS_DIR=/app/docs \
    DOCENT_DATA_DIR=/data
# DOCENT_DATA_DIR (git clones) in the volume the `node` user owns: with DATABASE_URL pointed at
# PostgreSQL it would otherwise be /app/.docent, which `node` cannot create.
# V8's background threads (garbage collection, compilation) sized from the container's CPUs, not Node's
# fixed four: beside the page-parsing workers, which use every core, four made ingestion about a quarter
# slower on 2 cores (docs/guides/deployment.mdx). In NODE_OPTIONS so that the CLI has it too.
ENV NODE_OPTIONS=--v8-pool-size=0
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
COPY docs ./docs
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME /data
EXPOSE 3000
# Readiness, not liveness: it turns 503 as soon as a shutdown begins or the database is unreachable.
HEALTHCHECK --interval=10s --timeout=3s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/readyz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# Node is PID 1 and handles SIGTERM itself: it drains answers for DOCENT_SHUTDOWN_GRACE_MS (30 s).
STOPSIGNAL SIGTERM
CMD ["node", "dist/main.js"]
