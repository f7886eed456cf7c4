# syntax=docker/dockerfile:1
# borderd: one image, the daemon and the CLI. Build: docker build -t borderd .
# Run: docker run -p 8080:8080 -v borderd-data:/data borderd

FROM node:22-bookworm-slim AS build
WORKDIR /app
# better-sqlite3 compiles from source when no prebuilt binary can be fetched.
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci
COPY tsconfig.json ./
COPY scripts ./scripts
COPY src ./src
COPY console ./console
RUN npm run build && npm prune --omit=dev

FROM node:22-bookworm-slim
# The daemon's memory settings, the same as `npm start` (docs/performance.md, "What the RSS is made
# of"): one malloc arena here, and a 512 MB heap limit (under which V8 grows the heap by a smaller
# factor between collections) in docker/entrypoint.sh, for `serve` only. A test keeps both equal to
# package.json's start script.
# Reachable from outside the container, so the production rules for what it may call and print:
# https webhook targets on public addresses only, and no first-start organization whose secret would
# go to the container's log (create organizations and clients with the CLI, README "Docker").
# /metrics has no credential, so it is on a port of its own (9464), never on the API's: publish
# 8080 alone to the world, and let only the scraper's network reach 9464.
ENV NODE_ENV=production \
    MALLOC_ARENA_MAX=1 \
    BORDERD_WEBHOOKS_ALLOW_HTTP=false \
    BORDERD_WEBHOOKS_ALLOW_PRIVATE_NETWORKS=false \
    BORDERD_ADMIN_BOOTSTRAP_ORGANIZATION=false \
    BORDERD_HOST=0.0.0.0 \
    BORDERD_PORT=8080 \
    BORDERD_DB=/data/borderd.db \
    BORDERD_METRICS_PORT=9464 \
    BORDERD_METRICS_HOST=0.0.0.0 \
    BORDERD_LOG_PRETTY=never
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
COPY bin ./bin
COPY config ./config
COPY docker/entrypoint.sh ./docker/entrypoint.sh
RUN mkdir -p /data && chown node:node /data && ln -s /app/bin/borderd.js /usr/local/bin/borderd
USER node
VOLUME ["/data"]
EXPOSE 8080 9464
HEALTHCHECK --interval=15s --timeout=3s --start-period=10s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.BORDERD_SERVER_PORT||process.env.BORDERD_PORT||8080)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
# exec form, and the entrypoint execs node: borderd is PID 1 and receives SIGTERM directly to drain.
ENTRYPOINT ["/app/docker/entrypoint.sh"]
CMD ["serve"]
